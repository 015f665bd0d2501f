//! mistake: the out-of-memory message blames fragmentation even when nothing is reserved but unallocated
//! fails: fragmentation_oom_explains_reserved_but_unallocated
//! says: does not blame fragmentation
//! (Over 400 lines: a variant replaces only `src/lib.rs`, so this one is the
//! solution's `lib.rs` with its `error` module inlined, where the mistake is.)
//!
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

mod error {
    //! Why a `malloc` or a `free` failed, and the message that explains it.

    use std::fmt;

    /// What went wrong.
    #[derive(Debug, PartialEq, Eq)]
    pub enum AllocError {
        /// No cached block fit, and the driver refused a new segment even after
        /// the allocator waited for pending frees and returned every wholly free
        /// segment. The figures are taken at that moment.
        OutOfMemory {
            /// The request, rounded up to a multiple of 512 bytes.
            requested: usize,
            /// Bytes in allocated blocks.
            allocated: usize,
            /// Bytes in segments held from the driver.
            reserved: usize,
        },
        /// `free` got a block this allocator does not hold as allocated: a block
        /// of another allocator. Nothing changed.
        NotAllocated {
            /// The block's address.
            addr: u64,
        },
    }

    impl fmt::Display for AllocError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match *self {
                Self::OutOfMemory {
                    requested,
                    allocated,
                    reserved,
                } => out_of_memory(f, requested, allocated, reserved),
                Self::NotAllocated { addr } => write!(
                    f,
                    "the block at {addr:#x} is not allocated by this allocator; nothing was freed"
                ),
            }
        }
    }

    impl std::error::Error for AllocError {}

    /// The out-of-memory message: the figures, then the likely cause.
    fn out_of_memory(
        f: &mut fmt::Formatter<'_>,
        requested: usize,
        allocated: usize,
        reserved: usize,
    ) -> fmt::Result {
        write!(
            f,
            "out of device memory: tried to allocate {} with {} reserved and {} allocated",
            Bytes(requested),
            Bytes(reserved),
            Bytes(allocated)
        )?;
        let idle = reserved.saturating_sub(allocated);
        // The mistake: fragmentation is blamed whatever the figures.
        if idle >= requested || idle < requested {
            write!(
                f,
                "; {} is reserved but unallocated, yet no cached block can hold the request: \
                 the free space is fragmented into blocks that are each too small or cached \
                 for other streams, and blocks never merge across segments. \
                 Every wholly free segment was already returned; allocate long-lived buffers \
                 once, up front, to avoid this pattern",
                Bytes(idle)
            )
        } else {
            f.write_str("; the device has no room left for another segment")
        }
    }

    /// A byte count written for people: `512 B`, `4 KiB`, `12 MiB`, `1.50 MiB`.
    struct Bytes(usize);

    impl fmt::Display for Bytes {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            const KIB: usize = 1 << 10;
            const MIB: usize = 1 << 20;
            let n = self.0;
            let (unit, name) = match n {
                n if n >= MIB => (MIB, "MiB"),
                n if n >= KIB => (KIB, "KiB"),
                _ => return write!(f, "{n} B"),
            };
            if n.is_multiple_of(unit) {
                write!(f, "{} {name}", n / unit)
            } else {
                write!(f, "{:.2} {name}", n as f64 / unit as f64)
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn sizes_read_naturally() {
            let text = |n| Bytes(n).to_string();
            assert_eq!(text(0), "0 B");
            assert_eq!(text(512), "512 B");
            assert_eq!(text(4096), "4 KiB");
            assert_eq!(text(12 << 20), "12 MiB");
            assert_eq!(text(3 << 19), "1.50 MiB");
        }

        #[test]
        fn fragmentation_is_named_only_when_it_is_the_cause() {
            let fragmented = AllocError::OutOfMemory {
                requested: 12 << 20,
                allocated: 16 << 20,
                reserved: 40 << 20,
            };
            let text = fragmented.to_string();
            assert!(text.contains("tried to allocate 12 MiB"), "{text}");
            assert!(
                text.contains("24 MiB is reserved but unallocated"),
                "{text}"
            );
            let full = AllocError::OutOfMemory {
                requested: 20 << 20,
                allocated: 30 << 20,
                reserved: 30 << 20,
            };
            assert!(!full.to_string().contains("reserved but unallocated"));
        }
    }
}
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
    size.max(1).div_ceil(MIN_BLOCK) * MIN_BLOCK
}

/// The pool that serves a rounded request.
fn pool_for(size: usize) -> Pool {
    if size <= SMALL_SIZE {
        Pool::Small
    } else {
        Pool::Large
    }
}

/// The size of the segment to ask for when no cached block fits `size`.
fn segment_size(size: usize) -> usize {
    if size <= SMALL_SIZE {
        SMALL_BUFFER
    } else if size < MIN_LARGE_ALLOC {
        LARGE_BUFFER
    } else {
        size.next_multiple_of(ROUND_LARGE)
    }
}

/// Whether `rest` bytes left over in a block of `pool` become a block.
fn should_split(pool: Pool, rest: usize) -> bool {
    match pool {
        Pool::Small => rest >= MIN_BLOCK,
        Pool::Large => rest > SMALL_SIZE,
    }
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
        self.process_events();
        let size = round_size(size);
        let pool = pool_for(size);
        let addr = match self.free.take_best_fit(pool, stream, size) {
            Some(addr) => addr,
            None => self.new_segment(size, pool, stream)?,
        };
        Ok(self.hand_out(addr, size))
    }

    /// Gives `block` back. With streams recorded by `record_stream`, it stays
    /// pending until the work they had queued by now has completed.
    pub fn free(&mut self, block: Block) -> Result<(), AllocError> {
        let addr = block.addr();
        let node = self
            .segments
            .block_mut(addr)
            .filter(|n| n.state == BlockState::Allocated && n.size == block.size())
            .filter(|_| block.owner() == self.id)
            .ok_or(AllocError::NotAllocated { addr })?;
        let uses = std::mem::take(&mut node.uses);
        self.stats.unallocate(block.size());
        if uses.is_empty() {
            self.release_block(addr);
            return Ok(());
        }
        node.state = BlockState::PendingFree;
        node.pending_events = uses.len();
        for stream in uses {
            let event = self.driver.record_event(stream);
            let queue = self.events.entry(stream).or_default();
            queue.push_back(PendingFree { event, block: addr });
        }
        Ok(())
    }

    /// Notes that work on `stream` uses `block`, so that `free` makes its
    /// reuse wait for that work. Its own stream needs no note.
    pub fn record_stream(&mut self, block: &Block, stream: StreamId) {
        if stream == block.stream() || block.owner() != self.id {
            return;
        }
        if let Some(node) = self.segments.block_mut(block.addr()) {
            node.uses.insert(stream);
        }
    }

    /// Waits for every pending free, then returns every wholly free segment
    /// (of any stream and pool) to the driver.
    pub fn empty_cache(&mut self) {
        self.wait_pending_frees();
        for base in self.segments.wholly_free() {
            let size = self.segments.block(base).expect("its block").size;
            let segment = self.segments.segment_of(base);
            self.free.remove(segment.pool, segment.stream, size, base);
            self.segments.remove(base);
            self.driver.free_segment(base, size);
            self.stats.unreserve(size);
        }
    }

    /// Bytes in allocated blocks.
    pub fn memory_allocated(&self) -> usize {
        self.stats.allocated_bytes
    }

    /// Bytes in segments held from the driver.
    pub fn memory_reserved(&self) -> usize {
        self.stats.reserved_bytes
    }

    /// The statistics now.
    pub fn stats(&self) -> Stats {
        let (inactive_split, inactive_split_bytes) = self.segments.inactive_split();
        Stats {
            inactive_split,
            inactive_split_bytes,
            ..self.stats.clone()
        }
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
        let bytes = segment_size(size);
        let base = match self.driver.alloc_segment(bytes) {
            Some(base) => base,
            None => self.retry_alloc_segment(size, bytes)?,
        };
        self.segments.add(base, bytes, stream, pool);
        self.stats.reserve(bytes);
        Ok(base)
    }

    /// The second attempt, after releasing every cached segment.
    fn retry_alloc_segment(&mut self, size: usize, bytes: usize) -> Result<u64, AllocError> {
        self.empty_cache();
        self.stats.num_alloc_retries += 1;
        self.driver.alloc_segment(bytes).ok_or_else(|| {
            self.stats.num_ooms += 1;
            AllocError::OutOfMemory {
                requested: size,
                allocated: self.stats.allocated_bytes,
                reserved: self.stats.reserved_bytes,
            }
        })
    }

    /// Hands out the front `size` bytes of the free block at `addr`,
    /// splitting off the rest when it is worth a block of its own.
    fn hand_out(&mut self, addr: u64, size: usize) -> Block {
        let (pool, stream) = {
            let segment = self.segments.segment_of(addr);
            (segment.pool, segment.stream)
        };
        let whole = self.segments.block(addr).expect("a free block").size;
        if should_split(pool, whole - size) {
            let rest = self.segments.split(addr, size);
            self.free.insert(pool, stream, whole - size, rest);
        }
        let node = self.segments.block_mut(addr).expect("the block");
        node.state = BlockState::Allocated;
        let size = node.size;
        self.stats.allocate(size);
        Block::new(addr, size, stream, self.id)
    }

    /// Makes the freed block at `addr` reusable: merges it with free
    /// neighbours and caches the result.
    fn release_block(&mut self, addr: u64) {
        let node = self.segments.block_mut(addr).expect("a freed block");
        node.state = BlockState::Free;
        let size = node.size;
        self.stats.deactivate(size);
        let mut addr = addr;
        if let Some(prev) = self.free_neighbour(self.segments.prev(addr)) {
            self.segments.absorb(prev, addr);
            addr = prev;
        }
        if let Some(next) = self.free_neighbour(self.segments.next(addr)) {
            self.segments.absorb(addr, next);
        }
        self.cache(addr);
    }

    /// `neighbour`, taken out of the cache, if it is a free block.
    fn free_neighbour(&mut self, neighbour: Option<u64>) -> Option<u64> {
        let addr = neighbour?;
        let block = self.segments.block(addr)?;
        if block.state != BlockState::Free {
            return None;
        }
        let size = block.size;
        let segment = self.segments.segment_of(addr);
        self.free.remove(segment.pool, segment.stream, size, addr);
        Some(addr)
    }

    /// Puts the free block at `addr` into its pool's cache.
    fn cache(&mut self, addr: u64) {
        let size = self.segments.block(addr).expect("a free block").size;
        let segment = self.segments.segment_of(addr);
        self.free.insert(segment.pool, segment.stream, size, addr);
    }

    /// One recorded stream is done with the pending block at `addr`.
    fn event_completed(&mut self, addr: u64) {
        let node = self.segments.block_mut(addr).expect("a pending block");
        node.pending_events -= 1;
        if node.pending_events == 0 {
            self.release_block(addr);
        }
    }

    /// Without blocking, releases the blocks whose events have completed,
    /// in each stream's order.
    fn process_events(&mut self) {
        let mut completed = Vec::new();
        for queue in self.events.values_mut() {
            while let Some(front) = queue.front() {
                if !self.driver.event_done(&front.event) {
                    break;
                }
                completed.extend(queue.pop_front().map(|p| p.block));
            }
        }
        self.events.retain(|_, queue| !queue.is_empty());
        for addr in completed {
            self.event_completed(addr);
        }
    }

    /// Blocks until every pending free has completed, and releases them.
    fn wait_pending_frees(&mut self) {
        let events = std::mem::take(&mut self.events);
        for pending in events.into_values().flatten() {
            self.driver.wait_event(&pending.event);
            self.event_completed(pending.block);
        }
    }
}

#[cfg(test)]
mod tests;
