//! The allocator's statistics, as they travel from the agent.

use serde::{Deserialize, Serialize};

/// Counters and gauges of one allocator (`CachingAllocator::stats`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Bytes in allocated blocks.
    pub allocated_bytes: usize,
    /// Bytes in segments held from the driver.
    pub reserved_bytes: usize,
    /// Bytes in allocated or pending-free blocks.
    pub active_bytes: usize,
    /// The largest `allocated_bytes` so far.
    pub peak_allocated_bytes: usize,
    /// The largest `reserved_bytes` so far.
    pub peak_reserved_bytes: usize,
    /// Free blocks inside segments that are split.
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
