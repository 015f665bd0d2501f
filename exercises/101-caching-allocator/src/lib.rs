//! A caching device-memory allocator with PyTorch's rules.
//!
//! Asking the driver for memory (`cudaMalloc`) costs hundreds of
//! microseconds, and giving it back (`cudaFree`) waits for the whole device.
//! So an inference engine asks rarely: it takes memory in *segments*, cuts
//! them into *blocks*, and caches freed blocks for the next request.
//!
//! * A request is rounded up to a multiple of [`MIN_BLOCK`] (512 bytes).
//! * Rounded requests up to [`SMALL_SIZE`] come from the small pool, larger
//!   ones from the large pool; free blocks are cached per pool and per stream.
//! * The cached block chosen is the *best fit*: the smallest that holds the
//!   request, the lowest address among equals.
//! * When none fits, a new segment comes from the [`Driver`]: [`SMALL_BUFFER`]
//!   for the small pool, [`LARGE_BUFFER`] for requests under
//!   [`MIN_LARGE_ALLOC`], else the request rounded up to [`ROUND_LARGE`].
//! * The request takes the front of the block; the rest is split off as a
//!   free block when it is at least 512 bytes (small pool) or more than
//!   1 MiB (large pool), otherwise the whole block is handed out.
//! * A freed block merges with free neighbours in its segment.
//! * A block used by another stream (`record_stream`) is reused only after
//!   that stream's work queued before the `free` has completed.
//! * When the driver refuses a segment, the allocator waits for pending
//!   frees, returns every wholly free segment, and asks once more.

// `types.rs` gives the allocator a few crate-private helpers (a block's
// owner, a fresh allocator id) that your code calls once it is written.
#![allow(dead_code, reason = "the starter does not call every helper yet")]

mod error;
mod pool;
mod segment;
mod sim;
mod stats;
mod types;

pub use error::AllocError;
pub use sim::{SimDriver, SimEvent};
pub use stats::Stats;
pub use types::{Block, BlockInfo, BlockState, Pool, SegmentInfo, StreamId};

/// Every request is rounded up to a multiple of this, and is at least this.
pub const MIN_BLOCK: usize = 512;
/// A rounded request of at most this many bytes goes to the small pool.
pub const SMALL_SIZE: usize = 1 << 20;
/// The size of a small-pool segment.
pub const SMALL_BUFFER: usize = 2 << 20;
/// The size of a large-pool segment for requests under [`MIN_LARGE_ALLOC`].
pub const LARGE_BUFFER: usize = 20 << 20;
/// From this size on, a request gets a segment of its own size.
pub const MIN_LARGE_ALLOC: usize = 10 << 20;
/// Such a segment is rounded up to a multiple of this.
pub const ROUND_LARGE: usize = 2 << 20;

/// What the allocator needs from a device.
pub trait Driver {
    /// A marker in a stream's queue of work.
    type Event;
    /// A segment of `bytes` bytes, or `None` when the device is out of memory.
    fn alloc_segment(&mut self, bytes: usize) -> Option<u64>;
    /// Gives back the segment at `addr` of `bytes` bytes.
    fn free_segment(&mut self, addr: u64, bytes: usize);
    /// An event after the work queued on `stream` so far.
    fn record_event(&mut self, stream: StreamId) -> Self::Event;
    /// Whether the work before `event` has completed; never blocks.
    fn event_done(&mut self, event: &Self::Event) -> bool;
    /// Blocks the CPU until the work before `event` has completed.
    fn wait_event(&mut self, event: &Self::Event);
}

/// A caching allocator over a [`Driver`].
///
/// TODO: the allocator is yours to design. It must know where every
/// reserved byte is (segments cut into blocks, by address, so that a block
/// finds its neighbours), which free blocks it caches for each pool and
/// stream (ordered so that the best fit is quick to find), which freed
/// blocks still wait for other streams' events, and its counters. Add the
/// fields you need; the statement has the rules, `judge hint 101` a plan.
pub struct CachingAllocator<D: Driver> {
    /// The device.
    driver: D,
    /// This allocator's id, which its blocks carry (`Block::new`).
    id: u64,
}

impl<D: Driver> CachingAllocator<D> {
    /// An allocator that holds no memory yet.
    pub fn new(driver: D) -> Self {
        Self {
            driver,
            id: types::next_allocator_id(),
        }
    }

    /// The driver.
    pub fn driver(&self) -> &D {
        &self.driver
    }

    /// The driver, to change (a test finishes a simulated stream through it).
    pub fn driver_mut(&mut self) -> &mut D {
        &mut self.driver
    }

    /// A block of at least `size` bytes for work on `stream`: a cached block
    /// when one fits, else a new segment.
    pub fn malloc(&mut self, size: usize, stream: StreamId) -> Result<Block, AllocError> {
        todo!("allocate {size} bytes for {stream:?}")
    }

    /// Gives `block` back. With streams recorded by `record_stream`, it stays
    /// pending until the work they had queued by now has completed.
    pub fn free(&mut self, block: Block) -> Result<(), AllocError> {
        todo!("free the block at {:#x}", block.addr())
    }

    /// Notes that work on `stream` uses `block`, so that `free` makes its
    /// reuse wait for that work. Its own stream needs no note.
    pub fn record_stream(&mut self, block: &Block, stream: StreamId) {
        todo!("note that {stream:?} uses the block at {:#x}", block.addr())
    }

    /// Waits for every pending free, then returns every wholly free segment
    /// (of any stream and pool) to the driver.
    pub fn empty_cache(&mut self) {
        todo!("return the wholly free segments")
    }

    /// Bytes in allocated blocks.
    pub fn memory_allocated(&self) -> usize {
        todo!("report the allocated bytes")
    }

    /// Bytes in segments held from the driver.
    pub fn memory_reserved(&self) -> usize {
        todo!("report the reserved bytes")
    }

    /// The statistics now.
    pub fn stats(&self) -> Stats {
        todo!("report the statistics")
    }

    /// Every segment with its blocks, by address.
    pub fn snapshot(&self) -> Vec<SegmentInfo> {
        todo!("list the segments and their blocks")
    }
}

#[cfg(test)]
mod tests;
