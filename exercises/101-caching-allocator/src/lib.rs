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

// The helpers below are called by the methods you write; until then the
// compiler would call them unused. Delete this line when you are done.
#![allow(dead_code, reason = "the starter's helpers are not called yet")]

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

use pool::FreeBlocks;
use segment::Segments;
use std::collections::{BTreeMap, VecDeque};

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

/// `size` rounded up to a multiple of [`MIN_BLOCK`], at least [`MIN_BLOCK`].
fn round_size(size: usize) -> usize {
    // TODO: round up to a multiple of MIN_BLOCK; 0 bytes count as 1 (so
    // the minimum is MIN_BLOCK). `usize::div_ceil` helps.
    todo!("round {size} bytes up to a multiple of {MIN_BLOCK}")
}

/// The pool that serves a rounded request.
fn pool_for(size: usize) -> Pool {
    // TODO: at most SMALL_SIZE is the small pool, anything larger the
    // large pool.
    todo!("pick the pool for {size} bytes")
}

/// The size of the segment to ask for when no cached block fits `size`.
fn segment_size(size: usize) -> usize {
    // TODO: SMALL_BUFFER for a small request; LARGE_BUFFER under
    // MIN_LARGE_ALLOC; else `size` rounded up to a multiple of ROUND_LARGE.
    todo!("size a new segment for {size} bytes")
}

/// Whether `rest` bytes left over in a block of `pool` become a block.
fn should_split(pool: Pool, rest: usize) -> bool {
    // TODO: the small pool splits when `rest >= MIN_BLOCK`; the large
    // pool only when `rest > SMALL_SIZE` (else a sliver would be left).
    todo!("decide whether {rest} bytes left in the {pool:?} pool are split off")
}

/// A freed block waiting for one stream's work: reusable once `event` is done.
struct PendingFree<E> {
    event: E,
    block: u64,
}

/// A caching allocator over a [`Driver`].
pub struct CachingAllocator<D: Driver> {
    /// The device.
    driver: D,
    /// This allocator's id, carried by its blocks.
    id: u64,
    /// Every segment and block: where each reserved byte is.
    segments: Segments,
    /// The cached free blocks, per pool, ordered for best fit.
    free: FreeBlocks,
    /// Per recorded stream, in recording order: the events that pending
    /// blocks wait for.
    events: BTreeMap<StreamId, VecDeque<PendingFree<D::Event>>>,
    /// The counters (`inactive_split` is counted in `stats()`).
    stats: Stats,
}

impl<D: Driver> CachingAllocator<D> {
    /// An allocator that holds no memory yet.
    pub fn new(driver: D) -> Self {
        Self {
            driver,
            id: types::next_allocator_id(),
            segments: Segments::default(),
            free: FreeBlocks::default(),
            events: BTreeMap::new(),
            stats: Stats::default(),
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
        // TODO: 1. Release the pending blocks whose events have completed,
        //          without blocking (`process_events`).
        //       2. Round the size, pick its pool.
        //       3. Take the best fit of that pool and stream (FreeBlocks), or
        //          else the front of a new segment (`new_segment`), whose
        //          errors are returned as they are.
        //       4. Hand out the front of the block (`hand_out`).
        todo!("allocate {size} bytes for {stream:?}")
    }

    /// Gives `block` back. With streams recorded by `record_stream`, it stays
    /// pending until the work they had queued by now has completed.
    pub fn free(&mut self, block: Block) -> Result<(), AllocError> {
        // TODO: 1. Refuse with NotAllocated (changing nothing) a block that is
        //          not an allocated block of this allocator: check the owner
        //          (`block.owner()` against `self.id`), the state, the size.
        //       2. Allocated bytes drop now (`Stats::unallocate`).
        //       3. No recorded streams: release the block (`release_block`).
        //       4. Else record one event per recorded stream on that stream
        //          (`driver.record_event`), queue `PendingFree { event, block }`
        //          per stream in `self.events`, and mark the block PendingFree
        //          with that many `pending_events`.
        todo!("free the block at {:#x}", block.addr())
    }

    /// Notes that work on `stream` uses `block`, so that `free` makes its
    /// reuse wait for that work. Its own stream needs no note.
    pub fn record_stream(&mut self, block: &Block, stream: StreamId) {
        // TODO: ignore the block's own stream (its order protects the block)
        // and blocks of other allocators; else add `stream` to the block's
        // `uses`, which `free` turns into events.
        todo!("note that {stream:?} uses the block at {:#x}", block.addr())
    }

    /// Waits for every pending free, then returns every wholly free segment
    /// (of any stream and pool) to the driver.
    pub fn empty_cache(&mut self) {
        // TODO: 1. Wait for every pending free (`wait_pending_frees`).
        //       2. For every wholly free segment (`Segments::wholly_free`):
        //          take its block out of the free lists, remove the segment,
        //          give it back to the driver, uncount it (`Stats::unreserve`).
        todo!("return the wholly free segments")
    }

    /// Bytes in allocated blocks.
    pub fn memory_allocated(&self) -> usize {
        // TODO: the allocated bytes of the statistics.
        todo!("report the allocated bytes")
    }

    /// Bytes in segments held from the driver.
    pub fn memory_reserved(&self) -> usize {
        // TODO: the reserved bytes of the statistics.
        todo!("report the reserved bytes")
    }

    /// The statistics now.
    pub fn stats(&self) -> Stats {
        // TODO: a copy of the counters, with `inactive_split` and
        // `inactive_split_bytes` counted now (`Segments::inactive_split`).
        todo!("report the statistics")
    }

    /// Every segment with its blocks, by address.
    pub fn snapshot(&self) -> Vec<SegmentInfo> {
        self.segments.snapshot()
    }

    /// Asks the driver for a segment for `size` bytes; if it refuses, waits
    /// for pending frees, releases the cache and asks once more.
    fn new_segment(
        &mut self,
        size: usize,
        pool: Pool,
        stream: StreamId,
    ) -> Result<u64, AllocError> {
        // TODO: ask the driver for `segment_size(size)` bytes; if it says
        // no, `retry_alloc_segment`. Add the segment (one free block) to
        // `self.segments`, count it (`Stats::reserve`), return its base.
        todo!("open a segment for {size} bytes of the {pool:?} pool on {stream:?}")
    }

    /// The second attempt, after releasing every cached segment.
    fn retry_alloc_segment(&mut self, size: usize, bytes: usize) -> Result<u64, AllocError> {
        // TODO: release the cache as `empty_cache` does (it waits for
        // pending frees first), count a retry, ask the driver once more.
        // If it still says no, count an OOM and return OutOfMemory with
        // the rounded request and the allocated and reserved bytes now.
        todo!("retry a segment of {bytes} bytes for {size} bytes")
    }

    /// Hands out the front `size` bytes of the free block at `addr`,
    /// splitting off the rest when it is worth a block of its own.
    fn hand_out(&mut self, addr: u64, size: usize) -> Block {
        // TODO: 1. Look up the block's pool and stream (its segment's).
        //       2. If `should_split` says so for the rest, split the block
        //          after `size` bytes and cache the rest in the free lists.
        //       3. Mark the block Allocated, count its whole size
        //          (`Stats::allocate`), and return a `Block` with `self.id`.
        todo!("hand out {size} bytes of the block at {addr:#x}")
    }

    /// Makes the freed block at `addr` reusable: merges it with free
    /// neighbours and caches the result.
    fn release_block(&mut self, addr: u64) {
        // TODO: 1. Mark the block Free; active bytes drop (`Stats::deactivate`).
        //       2. If the block before it is Free, take it out of the free
        //          lists and absorb this block into it (`free_neighbour`).
        //       3. Likewise absorb a Free block after it.
        //       4. Cache the merged block (`cache`).
        // Pending and allocated neighbours never merge.
        todo!("release the block at {addr:#x}")
    }

    /// `neighbour`, taken out of the cache, if it is a free block.
    fn free_neighbour(&mut self, neighbour: Option<u64>) -> Option<u64> {
        // TODO: if `neighbour` is a Free block, remove it from the free
        // lists and return its address; else None.
        todo!("take {neighbour:?} out of the cache if it is free")
    }

    /// Puts the free block at `addr` into its pool's cache.
    fn cache(&mut self, addr: u64) {
        // TODO: insert the free block at `addr` into its pool's free list,
        // under its segment's stream.
        todo!("cache the block at {addr:#x}")
    }

    /// One recorded stream is done with the pending block at `addr`.
    fn event_completed(&mut self, addr: u64) {
        // TODO: one fewer pending event for the block; at zero, release it.
        todo!("count a completed event of the block at {addr:#x}")
    }

    /// Without blocking, releases the blocks whose events have completed,
    /// in each stream's order.
    fn process_events(&mut self) {
        // TODO: for each stream's queue, pop events from the front while
        // `driver.event_done` says they are complete (stop at the first that
        // is not: later ones on that stream are not either), and call
        // `event_completed` for their blocks. Never wait here.
        todo!("release the blocks whose events have completed")
    }

    /// Blocks until every pending free has completed, and releases them.
    fn wait_pending_frees(&mut self) {
        // TODO: take every queued event, `driver.wait_event` on it (this
        // blocks), and call `event_completed` for its block.
        todo!("wait for every pending free")
    }
}

#[cfg(test)]
mod tests;
