//! Owned memory: stream-ordered device buffers, raw segments, pinned host buffers.

use crate::core::{NodeAccess, Op, Race};
use crate::device::Device;
use crate::elem::{AsView, Elem, View};
use crate::error::{GpuError, Result};
use crate::exec::HostId;
use crate::race::{HOST_BASE, Range};
use crate::remote::What;
use crate::trace::{BlockReason, CallSite, OpKind, StreamId};

/// Device memory from the stream-ordered pool (`cuMemAllocAsync`), zeroed on
/// its stream when allocated and freed on the same stream when dropped
/// (`cuMemFreeAsync`).
///
/// The pool may hand the memory to the next allocation on that stream at
/// once: if another stream may still be using the buffer, order that stream's
/// work before the drop (an event the home stream waits for), as
/// `record_stream` does in a caching allocator. The race checker reports a
/// reuse that nothing ordered.
pub struct DeviceBuffer<T: Elem> {
    device: Device,
    view: View<T>,
    stream: StreamId,
    /// Where it was allocated: a drop has no call site of its own, so a
    /// report of its free names this one.
    allocated_at: CallSite,
}

impl<T: Elem> DeviceBuffer<T> {
    pub(crate) fn new(device: Device, view: View<T>, stream: StreamId, site: CallSite) -> Self {
        Self {
            device,
            view,
            stream,
            allocated_at: site,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.view.len()
    }

    /// True when the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.view.is_empty()
    }

    /// Device address.
    pub fn addr(&self) -> u64 {
        self.view.addr()
    }

    /// The stream it was allocated on, where it will be freed.
    pub fn stream(&self) -> StreamId {
        self.stream
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn device(&self) -> &Device {
        &self.device
    }

    /// A view of elements `range`.
    #[track_caller]
    pub fn slice(&self, range: std::ops::Range<usize>) -> View<T> {
        self.view.slice(range)
    }

    /// Frees the buffer now, on its stream; the same as dropping it, but the
    /// trace and race reports name this call's site.
    #[track_caller]
    pub fn free(self) {
        let site = CallSite::caller();
        self.release(site);
        std::mem::forget(self);
    }

    fn release(&self, site: CallSite) {
        if let Some(remote) = self.device.proxy() {
            let addr = self.view.addr();
            return remote.forget(site, What::FreeBuffer { addr });
        }
        let Some(mut core) = self.device.try_core() else {
            return; // dropped while the device is busy (a panic in a call): leak
        };
        let (addr, bytes) = (self.view.addr(), self.view.bytes() as u64);
        core.allocations.remove(addr);
        let op = Op::new(OpKind::Free, "cuMemFreeAsync", site)
            .on(self.stream)
            .bytes(bytes)
            .race(Race::Free {
                addr,
                bytes,
                allocated_at: Some(self.allocated_at),
            });
        let stream = self.stream;
        let _ = core.call_forced(&op, |exec| exec.free_async(stream, addr));
    }
}

impl<T: Elem> AsView<T> for DeviceBuffer<T> {
    fn view(&self) -> View<T> {
        self.view
    }
}

impl<T: Elem> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        self.release(CallSite::internal("drop of a DeviceBuffer"));
    }
}

impl<T: Elem> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceBuffer({:?}, stream {})", self.view, self.stream)
    }
}

/// A raw segment of device memory (`cuMemAlloc`), the building block of a
/// caching allocator. Free it with [`Device::free_segment`], which waits for
/// the whole device; dropping it does the same.
pub struct Segment {
    device: Device,
    addr: u64,
    bytes: usize,
    freed: bool,
}

impl Segment {
    pub(crate) fn new(device: Device, addr: u64, bytes: usize, _site: CallSite) -> Self {
        Self {
            device,
            addr,
            bytes,
            freed: false,
        }
    }

    /// Device address of the first byte.
    pub fn addr(&self) -> u64 {
        self.addr
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// A view of `len` elements starting `offset` bytes into the segment.
    #[track_caller]
    pub fn view<T: Elem>(&self, offset: usize, len: usize) -> Result<View<T>> {
        let end = len
            .checked_mul(T::KIND.size())
            .and_then(|b| b.checked_add(offset));
        if end.is_none_or(|end| end > self.bytes) || !offset.is_multiple_of(T::KIND.size()) {
            return Err(GpuError::Length {
                op: "Segment::view",
                detail: format!(
                    "{len} elements at byte {offset} do not fit an aligned window of the {}-byte segment",
                    self.bytes
                ),
                site: CallSite::caller(),
            });
        }
        Ok(View::new(self.addr + offset as u64, len))
    }

    pub(crate) fn free(mut self, device: &Device, site: CallSite) -> Result<()> {
        if !self.device.same(device) {
            return Err(GpuError::ForeignHandle {
                op: "free_segment",
                site,
            });
        }
        if let Some(remote) = self.device.proxy() {
            remote.call::<()>(site, What::FreeSegment { addr: self.addr })?;
            self.freed = true;
            return Ok(());
        }
        // A refused free (sync debug mode, a capture) leaves the segment to
        // its `Drop`, which frees it anyway.
        self.release(site, false)?;
        self.freed = true;
        Ok(())
    }

    fn release(&self, site: CallSite, forced: bool) -> Result<()> {
        let mut core = self.device.core();
        let (addr, bytes) = (self.addr, self.bytes as u64);
        let op = Op::new(OpKind::FreeSegment, "cuMemFree", site)
            .bytes(bytes)
            .blocking(BlockReason::SegmentFree)
            .race(Race::DeviceDone)
            .race(Race::Free {
                addr,
                bytes,
                allocated_at: None,
            });
        if forced {
            core.call_forced(&op, |exec| exec.free_segment(addr))?;
        } else {
            core.call(&op, |exec| exec.free_segment(addr))?;
        }
        core.allocations.remove(addr);
        Ok(())
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        let site = CallSite::internal("drop of a Segment");
        if let Some(remote) = self.device.proxy() {
            if !self.freed {
                remote.forget(site, What::DropSegment { addr: self.addr });
            }
            return;
        }
        if !self.freed && self.device.try_core().is_some() {
            let _ = self.release(site, true);
        }
    }
}

impl std::fmt::Debug for Segment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Segment({:#x}, {} bytes)", self.addr, self.bytes)
    }
}

/// Page-locked host memory (`cuMemHostAlloc`, not write-combined): the GPU's
/// copy engines reach it directly, so copies to and from it are asynchronous.
///
/// The CPU reads and writes it through this handle, never by reference: a
/// copy queued on a stream may land at any time until it is known to be done
/// (an event or a synchronize). Reading before then gives stale data, and the
/// race checker names the copy and the read.
pub struct PinnedBuffer<T: Elem> {
    device: Device,
    host: HostId,
    len: usize,
    _elem: std::marker::PhantomData<T>,
}

impl<T: Elem> PinnedBuffer<T> {
    pub(crate) fn new(device: Device, host: HostId, len: usize) -> Self {
        Self {
            device,
            host,
            len,
            _elem: std::marker::PhantomData,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn host(&self) -> HostId {
        self.host
    }

    pub(crate) fn device(&self) -> &Device {
        &self.device
    }

    /// Where the first `len` elements live in the race checker's address space.
    pub(crate) fn range(&self, len: usize, write: bool) -> Range {
        Range {
            addr: HOST_BASE + ((self.host.0 as u64) << 40),
            bytes: (len * T::KIND.size()) as u64,
            write,
        }
    }

    /// The CPU touches the first `len` elements.
    fn cpu_access(&self, len: usize, write: bool, what: &'static str) -> Race {
        Race::Cpu(NodeAccess::new([self.range(len, write)], what))
    }

    /// The CPU reads the whole buffer.
    #[track_caller]
    pub fn to_vec(&self) -> Vec<T> {
        let site = CallSite::caller();
        if let Some(remote) = self.device.proxy() {
            let bytes: Vec<u8> = remote
                .call(site, What::ReadPinned { host: self.host })
                .expect("a pinned read cannot fail");
            return bytemuck::pod_collect_to_vec(&bytes);
        }
        let mut bytes = vec![0u8; self.len * T::KIND.size()];
        let op = Op::new(OpKind::HostRead, "pinned read", site)
            .bytes(bytes.len() as u64)
            .race(self.cpu_access(self.len, false, "a CPU read of pinned memory"));
        let host = self.host;
        self.device
            .core()
            .call(&op, |exec| {
                exec.read_pinned(host, 0, &mut bytes);
                Ok(())
            })
            .expect("a pinned read cannot fail");
        bytemuck::pod_collect_to_vec(&bytes)
    }

    /// The CPU writes `data` into the first `data.len()` elements.
    #[track_caller]
    pub fn write(&self, data: &[T]) -> Result<()> {
        let site = CallSite::caller();
        if data.len() > self.len {
            return Err(GpuError::Length {
                op: "PinnedBuffer::write",
                detail: format!(
                    "{} elements do not fit a pinned buffer of {}",
                    data.len(),
                    self.len
                ),
                site,
            });
        }
        let bytes: &[u8] = bytemuck::cast_slice(data);
        if let Some(remote) = self.device.proxy() {
            let data = bytes.to_vec();
            return remote.call(
                site,
                What::WritePinned {
                    host: self.host,
                    data,
                },
            );
        }
        let op = Op::new(OpKind::HostWrite, "pinned write", site)
            .bytes(bytes.len() as u64)
            .race(self.cpu_access(data.len(), true, "a CPU write of pinned memory"));
        let host = self.host;
        self.device.core().call(&op, |exec| {
            exec.write_pinned(host, 0, bytes);
            Ok(())
        })
    }
}

impl<T: Elem> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        let site = CallSite::internal("drop of a PinnedBuffer");
        if let Some(remote) = self.device.proxy() {
            return remote.forget(site, What::DropPinned { host: self.host });
        }
        let Some(mut core) = self.device.try_core() else {
            return;
        };
        let op = Op::new(OpKind::FreePinned, "cuMemFreeHost", site)
            .bytes((self.len * T::KIND.size()) as u64)
            .blocking(BlockReason::PinnedFree)
            .race(Race::DeviceDone);
        let host = self.host;
        let _ = core.call_forced(&op, |exec| exec.free_pinned(host));
    }
}

impl<T: Elem> std::fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PinnedBuffer<{}>(len {})", T::KIND.name(), self.len)
    }
}
