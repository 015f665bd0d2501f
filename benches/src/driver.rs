//! [`GpuDriver`]: the caching allocator's [`Driver`] over the `gpu` crate.
//!
//! Segments are raw device memory ([`Device::alloc_segment`], `cuMemAlloc`;
//! [`Device::free_segment`], `cuMemFree`, which waits until the whole device
//! is idle), and events are the `gpu` crate's events. The allocator's
//! [`StreamId`]s are mapped to real streams with [`GpuDriver::add_stream`].
//! It works the same on a real GPU and on the virtual one.

use caching_allocator::{Driver, StreamId};
use gpu::{Device, Event, Segment, Stream};
use std::collections::BTreeMap;

/// A [`Driver`] whose segments and events come from a `gpu` [`Device`].
///
/// The `Driver` trait has no room for errors other than "out of memory", so
/// a failing event call or `cuMemFree` panics with the driver's message:
/// in a benchmark or a test that is a bug to see at once, not a condition to
/// recover from.
pub struct GpuDriver {
    device: Device,
    streams: BTreeMap<StreamId, Stream>,
    segments: BTreeMap<u64, Segment>,
}

impl GpuDriver {
    /// A driver over `device` that knows no streams yet.
    pub fn new(device: Device) -> Self {
        Self {
            device,
            streams: BTreeMap::new(),
            segments: BTreeMap::new(),
        }
    }

    /// Names `stream` as the allocator's `id`: events for `id` (recorded
    /// when a block used by `id` is freed) are recorded on `stream`.
    pub fn add_stream(&mut self, id: StreamId, stream: Stream) {
        self.streams.insert(id, stream);
    }

    /// The device.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The stream named `id`, if [`GpuDriver::add_stream`] named one.
    pub fn stream(&self, id: StreamId) -> Option<&Stream> {
        self.streams.get(&id)
    }

    /// Segments held from the device now.
    pub fn segments(&self) -> usize {
        self.segments.len()
    }
}

// ANCHOR: driver_impl
impl Driver for GpuDriver {
    type Event = Event;

    /// `cuMemAlloc`: hundreds of microseconds, but it does not wait for the GPU.
    fn alloc_segment(&mut self, bytes: usize) -> Option<u64> {
        let segment = self.device.alloc_segment(bytes).ok()?;
        let addr = segment.addr();
        self.segments.insert(addr, segment);
        Some(addr)
    }

    /// `cuMemFree`: waits until every stream of the device is idle.
    fn free_segment(&mut self, addr: u64, bytes: usize) {
        let segment = self
            .segments
            .remove(&addr)
            .unwrap_or_else(|| panic!("free_segment({addr:#x}): no segment starts there"));
        assert_eq!(
            segment.bytes(),
            bytes,
            "free_segment({addr:#x}): wrong size"
        );
        if let Err(e) = self.device.free_segment(segment) {
            panic!("free_segment({addr:#x}): {e}");
        }
    }

    /// An event after the work queued on `stream` so far.
    fn record_event(&mut self, stream: StreamId) -> Event {
        let Some(s) = self.streams.get(&stream) else {
            panic!("stream {} was never named with add_stream", stream.0);
        };
        s.record_event()
            .unwrap_or_else(|e| panic!("recording an event: {e}"))
    }

    /// `cudaEventQuery`: never blocks.
    fn event_done(&mut self, event: &Event) -> bool {
        event
            .query()
            .unwrap_or_else(|e| panic!("querying an event: {e}"))
    }

    /// `cudaEventSynchronize`: blocks the CPU.
    fn wait_event(&mut self, event: &Event) {
        event
            .synchronize()
            .unwrap_or_else(|e| panic!("waiting for an event: {e}"));
    }
}
// ANCHOR_END: driver_impl

#[cfg(test)]
mod tests {
    use super::*;
    use caching_allocator::CachingAllocator;
    use gpu::Backend;
    use std::time::Duration;

    const A: StreamId = StreamId(0);
    const B: StreamId = StreamId(1);
    /// 1 MiB of `f32`: a small-pool block.
    const N: usize = 1 << 18;

    fn allocator() -> gpu::Result<(CachingAllocator<GpuDriver>, Stream, Stream)> {
        let device = Device::open(Backend::Virtual)?;
        let (a, b) = (device.new_stream()?, device.new_stream()?);
        let mut driver = GpuDriver::new(device);
        driver.add_stream(A, a.clone());
        driver.add_stream(B, b.clone());
        Ok((CachingAllocator::new(driver), a, b))
    }

    #[test]
    fn a_cached_pair_never_calls_the_device() -> Result<(), Box<dyn std::error::Error>> {
        let (mut alloc, _, _) = allocator()?;
        let block = alloc.malloc(N * 4, A)?;
        alloc.free(block)?;
        let mark = alloc.driver().device().trace_mark();
        for _ in 0..100 {
            let block = alloc.malloc(N * 4, A)?;
            alloc.free(block)?;
        }
        assert_eq!(alloc.driver().device().trace_mark(), mark);
        assert_eq!(alloc.driver().segments(), 1);
        alloc.empty_cache();
        assert_eq!(alloc.driver().segments(), 0);
        Ok(())
    }

    // ANCHOR: slow_reader
    #[test]
    fn a_block_read_by_another_stream_waits_for_it() -> Result<(), Box<dyn std::error::Error>> {
        let (mut alloc, a, b) = allocator()?;
        let device = alloc.driver().device().clone();
        let out = b.alloc_zeros::<f32>(1)?;
        let block = alloc.malloc(N * 4, A)?;
        let old = block.addr();
        a.fill(device.view::<f32>(old, N)?, 1.0)?;
        b.wait_event(&a.record_event()?)?; // B reads what A wrote
        b.sum_after(Duration::from_millis(20), device.view::<f32>(old, N)?, &out)?;
        alloc.record_stream(&block, B); // B uses the block: reuse must wait for it
        alloc.free(block)?; // records an event on B; the block is pending
        let again = alloc.malloc(N * 4, A)?; // another block, not the one B reads
        assert_ne!(again.addr(), old);
        a.fill(device.view::<f32>(again.addr(), N)?, 999.0)?;
        assert_eq!(b.to_vec(&out)?, [N as f32]);
        assert!(device.races().is_empty(), "{:?}", device.races());
        Ok(())
    }
    // ANCHOR_END: slow_reader
}
