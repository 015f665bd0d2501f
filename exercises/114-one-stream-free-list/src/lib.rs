//! One stream's free list, with `record_stream`.
//!
//! A [`StreamAllocator`] hands out blocks of device memory for work on one
//! stream, its *owner*. Each block is a raw segment of exactly the size
//! asked for. Write [`StreamAllocator::malloc`], [`StreamAllocator::free`]
//! and [`StreamAllocator::record_stream`] (see `README.md`): a block freed
//! by the owner alone is reusable at once, a block another stream used is
//! pending until that stream's work is done, and the CPU never waits.

use gpu::{Event, Result, Segment, Stream};

/// Device memory handed out by a [`StreamAllocator`], for work on its owner
/// stream (and on the streams noted with `record_stream`).
#[derive(Debug)]
pub struct Block {
    segment: Segment,
    /// The streams other than the owner that use the block.
    #[allow(dead_code)] // read once `free` is written
    streams: Vec<Stream>,
}

impl Block {
    /// Device address of the block's first byte.
    pub fn addr(&self) -> u64 {
        self.segment.addr()
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.segment.bytes()
    }
}

/// A freed block that other streams may still use, with one event per stream.
#[derive(Debug)]
#[allow(dead_code)] // made and read once `free` and `malloc` are written
struct Pending {
    segment: Segment,
    events: Vec<Event>,
}

/// A caching allocator for one stream: a free list and a pending list.
#[derive(Debug)]
pub struct StreamAllocator {
    /// The stream the blocks are for.
    owner: Stream,
    /// Blocks free for the owner stream, any size.
    free: Vec<Segment>,
    /// Freed blocks that wait for other streams' events.
    pending: Vec<Pending>,
}

impl StreamAllocator {
    /// An allocator for work on `owner`, holding no memory yet.
    pub fn new(owner: &Stream) -> Self {
        Self {
            owner: owner.clone(),
            free: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// A block of exactly `bytes` bytes for work on the owner stream: a
    /// free block of that size when there is one, else a new segment
    /// (`self.owner.device().alloc_segment(bytes)`). Pending blocks whose
    /// events have all completed are made free first, without waiting.
    pub fn malloc(&mut self, bytes: usize) -> Result<Block> {
        // TODO: move the pending blocks whose events have all completed
        // (`Event::query`, which never blocks) to `self.free`; then take a
        // free segment of exactly `bytes`, or allocate one.
        let _ = (bytes, &self.owner, &self.free, &self.pending);
        todo!("malloc: reuse a free block of this size, else a new segment")
    }

    /// Notes that `stream` uses `block`. The owner stream needs no note,
    /// nor does a stream already noted.
    pub fn record_stream(&mut self, block: &mut Block, stream: &Stream) {
        // TODO: remember `stream` in `block.streams`, unless it is the owner
        // (compare `Stream::id`) or already there.
        let _ = (block, stream);
        todo!("record_stream: note the stream on the block")
    }

    /// Takes `block` back. Unused by other streams, it is free at once. Else
    /// one event is recorded on each stream that uses it, now, after the
    /// work queued there, and the block stays pending until they complete.
    pub fn free(&mut self, block: Block) -> Result<()> {
        // TODO: no noted stream: push the segment on `self.free`. Else
        // record an event on each noted stream (`Stream::record_event`) and
        // push a `Pending` with the segment and the events.
        let _ = block;
        todo!("free: free at once, or pending with one event per noted stream")
    }
}
