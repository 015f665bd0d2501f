//! The allocator's statistics, named after PyTorch's `torch.cuda.memory_stats()`.

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
