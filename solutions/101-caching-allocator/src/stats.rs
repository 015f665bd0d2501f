//! The allocator's statistics, named after PyTorch's `torch.cuda.memory_stats()`.

// ANCHOR: stats
/// Counters and gauges of one allocator (`CachingAllocator::stats`).
///
/// A block is *allocated* from `malloc` to `free`, *active* from `malloc`
/// until it is really reusable (after the events of `record_stream` have
/// completed), and *reserved* memory is every segment held from the driver,
/// used or cached.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Bytes in allocated blocks (whole blocks, as handed out).
    pub allocated_bytes: usize,
    /// Bytes in segments held from the driver.
    pub reserved_bytes: usize,
    /// Bytes in allocated or pending-free blocks.
    pub active_bytes: usize,
    /// The largest `allocated_bytes` so far.
    pub peak_allocated_bytes: usize,
    /// The largest `reserved_bytes` so far.
    pub peak_reserved_bytes: usize,
    /// Free blocks inside segments that are split (hold more than one
    /// block): cached memory that `empty_cache` cannot return.
    pub inactive_split: usize,
    /// Bytes in those blocks.
    pub inactive_split_bytes: usize,
    /// Times `malloc` released the cache and asked the driver again.
    pub num_alloc_retries: usize,
    /// Times `malloc` failed with `OutOfMemory`.
    pub num_ooms: usize,
    /// Segments obtained from the driver.
    pub num_device_alloc: usize,
    /// Segments returned to the driver.
    pub num_device_free: usize,
}
// ANCHOR_END: stats

impl Stats {
    /// A block of `bytes` was handed out.
    pub(crate) fn allocate(&mut self, bytes: usize) {
        self.allocated_bytes += bytes;
        self.active_bytes += bytes;
        self.peak_allocated_bytes = self.peak_allocated_bytes.max(self.allocated_bytes);
    }

    /// A block of `bytes` was freed (it may still be pending).
    pub(crate) fn unallocate(&mut self, bytes: usize) {
        self.allocated_bytes -= bytes;
    }

    /// A freed block of `bytes` became reusable.
    pub(crate) fn deactivate(&mut self, bytes: usize) {
        self.active_bytes -= bytes;
    }

    /// A segment of `bytes` came from the driver.
    pub(crate) fn reserve(&mut self, bytes: usize) {
        self.reserved_bytes += bytes;
        self.num_device_alloc += 1;
        self.peak_reserved_bytes = self.peak_reserved_bytes.max(self.reserved_bytes);
    }

    /// A segment of `bytes` went back to the driver.
    pub(crate) fn unreserve(&mut self, bytes: usize) {
        self.reserved_bytes -= bytes;
        self.num_device_free += 1;
    }
}
