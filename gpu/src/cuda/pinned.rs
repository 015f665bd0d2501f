//! Pinned (page-locked) host memory, held as a raw pointer.
//!
//! `cuMemHostAlloc` with flags 0: ordinary cached memory, fast for the CPU to
//! read (cudarc's own `alloc_pinned` is write-combined, which is slow to read,
//! and its accessors synchronize). Asynchronous copies read and write it while
//! they run, so the CPU's view may be stale or half-written: that is the
//! lesson, and why every access goes through a raw pointer, never a Rust
//! reference that could be assumed unchanging.

use super::drv;
use crate::error::Result;
use cudarc::driver::result;
use std::ffi::c_void;
use std::ptr::NonNull;

/// One pinned host allocation.
#[derive(Debug)]
pub(super) struct Pinned {
    /// First byte, from `cuMemHostAlloc`.
    ptr: NonNull<u8>,
    /// Bytes the caller asked for (at least one byte is allocated).
    len: usize,
}

impl Pinned {
    /// Allocates `bytes` of pinned memory and zeroes it. A request of zero
    /// bytes allocates one, so that every allocation has its own address.
    /// The caller has bound the context to this thread.
    pub(super) fn alloc(bytes: usize) -> Result<Self> {
        let size = bytes.max(1);
        // SAFETY: a plain allocation call; the pointer it returns is checked
        // for null below and owned by the `Pinned` from then on.
        let raw = unsafe { result::malloc_host(size, 0) }.map_err(drv("cuMemHostAlloc"))?;
        let ptr = NonNull::new(raw.cast::<u8>()).ok_or_else(|| crate::error::GpuError::Driver {
            call: "cuMemHostAlloc",
            message: "the driver returned a null pointer".into(),
        })?;
        // SAFETY: `ptr` points to `size` freshly allocated bytes that nothing
        // else uses yet.
        unsafe { ptr.as_ptr().write_bytes(0, size) };
        Ok(Self { ptr, len: bytes })
    }

    /// Frees the allocation (`cuMemFreeHost`). This may wait for the device:
    /// the driver synchronizes before unmapping page-locked memory. The
    /// caller has bound the context and makes sure no queued copy still uses
    /// the memory (the front end's rules, or a synchronize at drop).
    pub(super) fn free(self) -> Result<()> {
        // SAFETY: `ptr` came from `cuMemHostAlloc` and is freed exactly once,
        // since `free` consumes the only owner.
        unsafe { result::free_host(self.ptr.as_ptr().cast::<c_void>()) }
            .map_err(drv("cuMemFreeHost"))
    }

    /// The address of byte `offset`, after checking that `bytes` bytes from
    /// there lie inside the allocation.
    ///
    /// # Panics
    /// When the range is out of bounds (the front end checks it first).
    pub(super) fn at(&self, offset: usize, bytes: usize) -> *mut u8 {
        let end = offset.checked_add(bytes);
        assert!(
            end.is_some_and(|end| end <= self.len),
            "pinned range [{offset}, +{bytes}) is outside an allocation of {} bytes",
            self.len
        );
        // SAFETY: `offset <= len`, and the allocation holds at least `len`
        // bytes, so the result is inside it or one past its end.
        unsafe { self.ptr.as_ptr().add(offset) }
    }

    /// Copies `out.len()` bytes from `offset` into `out`.
    pub(super) fn read(&self, offset: usize, out: &mut [u8]) {
        let src = self.at(offset, out.len());
        // SAFETY: `at` checked that the source range lies in the allocation;
        // `out` is a distinct Rust buffer, so the ranges do not overlap. A
        // copy the device runs at the same time may change these bytes
        // underneath: any byte pattern is a valid `u8`, so the CPU then reads
        // stale or mixed data, never an invalid value.
        unsafe { std::ptr::copy_nonoverlapping(src, out.as_mut_ptr(), out.len()) };
    }

    /// Copies `data` to `offset`.
    pub(super) fn write(&self, offset: usize, data: &[u8]) {
        let dst = self.at(offset, data.len());
        // SAFETY: `at` checked that the destination range lies in the
        // allocation, which no Rust reference points into; `data` is a
        // distinct Rust buffer, so the ranges do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len()) };
    }
}
