//! Element types and typed views of device memory.

use serde::{Deserialize, Serialize};
use std::marker::PhantomData;
use std::ops::Range;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
}

/// The element types device memory holds: `f32` (activations, logits),
/// `i32` (tokens, flags) and `u32`.
pub trait Elem: bytemuck::Pod + Default + PartialEq + std::fmt::Debug + sealed::Sealed {
    /// The runtime tag of this type.
    const KIND: ElemKind;
}

impl Elem for f32 {
    const KIND: ElemKind = ElemKind::F32;
}
impl Elem for i32 {
    const KIND: ElemKind = ElemKind::I32;
}
impl Elem for u32 {
    const KIND: ElemKind = ElemKind::U32;
}

/// Bytes of `len` elements of `T`, or a `Length` error when that overflows.
pub(crate) fn byte_len<T: Elem>(
    len: usize,
    op: &'static str,
    site: crate::trace::CallSite,
) -> crate::error::Result<usize> {
    len.checked_mul(T::KIND.size())
        .ok_or_else(|| crate::error::GpuError::Length {
            op,
            detail: format!(
                "{len} elements of {} do not fit the address space",
                T::KIND.name()
            ),
            site,
        })
}

/// The runtime tag of an [`Elem`] type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ElemKind {
    /// `f32`.
    F32,
    /// `i32`.
    I32,
    /// `u32`.
    U32,
}

impl ElemKind {
    /// Size of one element in bytes (all three are 4).
    pub const fn size(self) -> usize {
        4
    }

    /// The name used in kernel names (`fill_f32`).
    pub const fn name(self) -> &'static str {
        match self {
            Self::F32 => "f32",
            Self::I32 => "i32",
            Self::U32 => "u32",
        }
    }
}

/// A typed window on device memory: an address and a length.
///
/// A view is `Copy` and borrows nothing, because the GPU does not follow
/// Rust's borrows: work queued on a stream may use memory long after the call
/// that queued it returned. Every use is checked against the device's live
/// allocations, and the race checker follows who reads and writes it.
pub struct View<T> {
    addr: u64,
    len: usize,
    _elem: PhantomData<fn() -> T>,
}

impl<T> Clone for View<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for View<T> {}

impl<T> PartialEq for View<T> {
    fn eq(&self, other: &Self) -> bool {
        self.addr == other.addr && self.len == other.len
    }
}
impl<T> Eq for View<T> {}

/// A view travels between processes as its address and length.
impl<T> Serialize for View<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.addr, self.len).serialize(s)
    }
}

impl<'de, T> Deserialize<'de> for View<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (addr, len) = <(u64, usize)>::deserialize(d)?;
        Ok(Self {
            addr,
            len,
            _elem: PhantomData,
        })
    }
}

impl<T: Elem> std::fmt::Debug for View<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "View<{}>({:#x}, len {})",
            T::KIND.name(),
            self.addr,
            self.len
        )
    }
}

impl<T: Elem> View<T> {
    pub(crate) fn new(addr: u64, len: usize) -> Self {
        Self {
            addr,
            len,
            _elem: PhantomData,
        }
    }

    /// Device address of the first element.
    pub fn addr(&self) -> u64 {
        self.addr
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the view has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.len * T::KIND.size()
    }

    /// A sub-view of elements `range`.
    ///
    /// # Panics
    /// When `range` does not lie inside the view, like slice indexing.
    #[track_caller]
    pub fn slice(&self, range: Range<usize>) -> Self {
        assert!(
            range.start <= range.end && range.end <= self.len,
            "view range {range:?} is out of bounds for a view of {} elements",
            self.len
        );
        Self::new(
            self.addr + (range.start * T::KIND.size()) as u64,
            range.end - range.start,
        )
    }

    pub(crate) fn raw(&self) -> RawView {
        RawView {
            addr: self.addr,
            len: self.len,
            elem: T::KIND,
        }
    }
}

/// Anything that can be seen as a [`View`]: a view itself or a device buffer.
pub trait AsView<T: Elem> {
    /// The whole memory as a view.
    fn view(&self) -> View<T>;
}

impl<T: Elem> AsView<T> for View<T> {
    fn view(&self) -> View<T> {
        *self
    }
}

impl<T: Elem, V: AsView<T> + ?Sized> AsView<T> for &V {
    fn view(&self) -> View<T> {
        (**self).view()
    }
}

/// An untyped view, as kernels and backends see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct RawView {
    pub(crate) addr: u64,
    pub(crate) len: usize,
    pub(crate) elem: ElemKind,
}

impl RawView {
    pub(crate) fn bytes(&self) -> u64 {
        (self.len * self.elem.size()) as u64
    }
}

/// A scalar argument whose type follows the buffer it goes with.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum Scalar {
    F32(f32),
    I32(i32),
    U32(u32),
}

impl Scalar {
    pub(crate) fn of<T: Elem>(value: T) -> Self {
        let bits: u32 = bytemuck::cast(value);
        match T::KIND {
            ElemKind::F32 => Self::F32(f32::from_bits(bits)),
            ElemKind::I32 => Self::I32(bits as i32),
            ElemKind::U32 => Self::U32(bits),
        }
    }

    pub(crate) fn bits(self) -> u32 {
        match self {
            Self::F32(v) => v.to_bits(),
            Self::I32(v) => v as u32,
            Self::U32(v) => v,
        }
    }
}
