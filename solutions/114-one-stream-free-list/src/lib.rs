//! One stream's free list, with `record_stream`.
//!
//! A [`StreamAllocator`] hands out blocks of device memory for work on one
//! stream, its *owner*. Each block is a raw segment of exactly the size
//! asked for. A freed block is kept for the next request of its size: work
//! queued on the owner stream runs in order, so the owner may reuse a block
//! as soon as it is freed. A block that another stream used (noted with
//! [`StreamAllocator::record_stream`]) is kept *pending* at `free`, with one
//! event recorded on each such stream, and comes back to the free list only
//! once every one of its events has completed. `malloc` asks the events
//! without waiting for them: the CPU never waits for the GPU here.

use gpu::{Event, Result, Segment, Stream};

/// Device memory handed out by a [`StreamAllocator`], for work on its owner
/// stream (and on the streams noted with `record_stream`).
#[derive(Debug)]
pub struct Block {
    segment: Segment,
    /// The streams other than the owner that use the block.
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

    // ANCHOR: malloc
    /// A block of exactly `bytes` bytes for work on the owner stream: a
    /// free block of that size when there is one, else a new segment.
    /// Pending blocks whose events have all completed are made free first,
    /// without waiting for any.
    pub fn malloc(&mut self, bytes: usize) -> Result<Block> {
        self.process_events()?;
        let segment = match self.free.iter().position(|s| s.bytes() == bytes) {
            Some(i) => self.free.swap_remove(i),
            None => self.owner.device().alloc_segment(bytes)?,
        };
        Ok(Block {
            segment,
            streams: Vec::new(),
        })
    }

    /// Moves every pending block whose events have all completed to the
    /// free list. `query` never blocks; each block is asked on its own, so
    /// a slow stream holds back only the blocks it uses.
    fn process_events(&mut self) -> Result<()> {
        let mut i = 0;
        while i < self.pending.len() {
            if all_done(&self.pending[i].events)? {
                let done = self.pending.swap_remove(i);
                self.free.push(done.segment);
            } else {
                i += 1;
            }
        }
        Ok(())
    }
    // ANCHOR_END: malloc

    // ANCHOR: record_stream
    /// Notes that `stream` uses `block`. The owner stream needs no note
    /// (its work is in order with the block's reuse), nor does a stream
    /// already noted.
    pub fn record_stream(&mut self, block: &mut Block, stream: &Stream) {
        let id = stream.id();
        let known = id == self.owner.id() || block.streams.iter().any(|s| s.id() == id);
        if !known {
            block.streams.push(stream.clone());
        }
    }

    /// Takes `block` back. Unused by other streams, it is free at once. Else
    /// one event is recorded on each stream that uses it, now, after the work
    /// queued there, and the block stays pending until they have completed.
    pub fn free(&mut self, block: Block) -> Result<()> {
        if block.streams.is_empty() {
            self.free.push(block.segment);
            return Ok(());
        }
        let events = block
            .streams
            .iter()
            .map(|stream| stream.record_event())
            .collect::<Result<Vec<_>>>()?;
        self.pending.push(Pending {
            segment: block.segment,
            events,
        });
        Ok(())
    }
    // ANCHOR_END: record_stream
}

/// Whether every one of `events` has completed, asked without waiting.
fn all_done(events: &[Event]) -> Result<bool> {
    for event in events {
        if !event.query()? {
            return Ok(false);
        }
    }
    Ok(true)
}
