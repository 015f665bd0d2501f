//! Allocators for the suite's own tests, written with the `gpu` crate: the
//! solution's design with one known mistake each, chosen by `M` (the
//! constants below), whose messages `tests.rs` snapshots.

use super::support::Api;
use gpu::{Event, Result, Segment, Stream};

/// `record_stream` does nothing.
pub(super) const NO_NOTE: u8 = 1;
/// `free` records the event on the owner stream, once per noted stream.
pub(super) const EVENT_ON_OWNER: u8 = 2;
/// `record_stream` records the event; `free` keeps it.
pub(super) const EVENT_AT_RECORD_STREAM: u8 = 3;
/// `malloc` never asks the pending blocks.
pub(super) const NEVER_POLLS: u8 = 4;
/// `malloc` asks only the oldest pending block, and stops at the first not done.
pub(super) const HEAD_OF_LINE: u8 = 5;
/// A pending block comes back when any one of its events has completed.
pub(super) const ANY_EVENT: u8 = 6;
/// When one pending block is done, every pending block comes back.
pub(super) const RELEASE_ALL: u8 = 7;
/// `malloc` waits for each pending block's events (`Event::synchronize`).
pub(super) const SYNC_IN_MALLOC: u8 = 8;
/// `free` waits for the noted streams (`Stream::synchronize`), then frees.
pub(super) const SYNC_IN_FREE: u8 = 9;
/// `record_stream` notes the owner stream too.
pub(super) const OWNER_NOTED: u8 = 10;
/// `malloc` takes the last free block, whatever its size.
pub(super) const ANY_SIZE: u8 = 11;
/// `malloc` always asks for a new segment.
pub(super) const NEVER_REUSES: u8 = 12;
/// `free` gives a block no other stream uses back to the device.
pub(super) const FREES_THE_SEGMENT: u8 = 13;
/// `free` records the events, then puts the block on the free list.
pub(super) const EVENTS_IGNORED: u8 = 14;
/// `malloc` moves a pending block back when its events have *not* completed.
pub(super) const INVERTED_QUERY: u8 = 15;
/// `free` records an event on the owner stream for every block.
pub(super) const EVENT_FOR_EVERY_FREE: u8 = 16;

/// `new` takes a 1 MiB segment up front, into the free list.
pub(super) const PREALLOCATES: u8 = 17;
/// `malloc` takes the first free block at least as big as the request.
pub(super) const BIG_ENOUGH: u8 = 18;
/// The pass over the pending blocks moves on after a `swap_remove` too,
/// skipping the block moved into the removed one's place.
pub(super) const SKIPS_SWAPPED: u8 = 19;
/// `record_stream` keeps a stream only when the block has none yet.
pub(super) const FIRST_NOTE_ONLY: u8 = 20;

/// A block of [`Wrong`].
pub(super) struct Block {
    segment: Segment,
    streams: Vec<Stream>,
    events: Vec<Event>,
}

/// The solution's allocator with mistake `M`.
pub(super) struct Wrong<const M: u8> {
    owner: Stream,
    free: Vec<Segment>,
    pending: Vec<(Segment, Vec<Event>)>,
}

impl<const M: u8> Wrong<M> {
    /// Whether the pending block `i` comes back.
    fn done(&self, i: usize) -> Result<bool> {
        let events = &self.pending[i].1;
        if M == SYNC_IN_MALLOC {
            for e in events {
                e.synchronize()?;
            }
            return Ok(true);
        }
        let mut answers = Vec::new();
        for e in events {
            answers.push(e.query()?);
        }
        Ok(match M {
            ANY_EVENT => answers.iter().any(|&d| d),
            INVERTED_QUERY => !answers.iter().all(|&d| d),
            _ => answers.iter().all(|&d| d),
        })
    }

    /// Moves the pending blocks that are done to the free list.
    fn process(&mut self) -> Result<()> {
        if M == NEVER_POLLS {
            return Ok(());
        }
        if M == HEAD_OF_LINE {
            while !self.pending.is_empty() && self.done(0)? {
                let (segment, _) = self.pending.remove(0);
                self.free.push(segment);
            }
            return Ok(());
        }
        let mut i = 0;
        while i < self.pending.len() {
            if self.done(i)? {
                if M == RELEASE_ALL {
                    let all = std::mem::take(&mut self.pending);
                    self.free.extend(all.into_iter().map(|(s, _)| s));
                    return Ok(());
                }
                let (segment, _) = self.pending.swap_remove(i);
                self.free.push(segment);
                if M == SKIPS_SWAPPED {
                    i += 1;
                }
            } else {
                i += 1;
            }
        }
        Ok(())
    }
}

impl<const M: u8> Api for Wrong<M> {
    type Block = Block;

    fn open(owner: &Stream) -> Self {
        let free = if M == PREALLOCATES {
            let segment = owner.device().alloc_segment(1 << 20);
            vec![segment.expect("the device has 1 MiB")]
        } else {
            Vec::new()
        };
        Self {
            owner: owner.clone(),
            free,
            pending: Vec::new(),
        }
    }

    fn malloc(&mut self, bytes: usize) -> Result<Block> {
        self.process()?;
        let found = match M {
            NEVER_REUSES => None,
            ANY_SIZE => self.free.pop(),
            BIG_ENOUGH => self
                .free
                .iter()
                .position(|s| s.bytes() >= bytes)
                .map(|i| self.free.swap_remove(i)),
            _ => self
                .free
                .iter()
                .position(|s| s.bytes() == bytes)
                .map(|i| self.free.swap_remove(i)),
        };
        let segment = match found {
            Some(segment) => segment,
            None => self.owner.device().alloc_segment(bytes)?,
        };
        Ok(Block {
            segment,
            streams: Vec::new(),
            events: Vec::new(),
        })
    }

    fn record_stream(&mut self, block: &mut Block, stream: &Stream) {
        if M == NO_NOTE || (M != OWNER_NOTED && stream.id() == self.owner.id()) {
            return;
        }
        if block.streams.iter().any(|s| s.id() == stream.id())
            || (M == FIRST_NOTE_ONLY && !block.streams.is_empty())
        {
            return;
        }
        if M == EVENT_AT_RECORD_STREAM {
            block
                .events
                .push(stream.record_event().expect("an event records"));
        }
        block.streams.push(stream.clone());
    }

    fn free(&mut self, block: Block) -> Result<()> {
        if M == EVENT_FOR_EVERY_FREE && block.streams.is_empty() {
            let event = self.owner.record_event()?;
            self.pending.push((block.segment, vec![event]));
            return Ok(());
        }
        if block.streams.is_empty() {
            if M == FREES_THE_SEGMENT {
                return self.owner.device().free_segment(block.segment);
            }
            self.free.push(block.segment);
            return Ok(());
        }
        if M == SYNC_IN_FREE {
            for s in &block.streams {
                s.synchronize()?;
            }
            self.free.push(block.segment);
            return Ok(());
        }
        let events = match M {
            EVENT_AT_RECORD_STREAM => block.events,
            EVENT_ON_OWNER => block
                .streams
                .iter()
                .map(|_| self.owner.record_event())
                .collect::<Result<Vec<_>>>()?,
            _ => block
                .streams
                .iter()
                .map(|s| s.record_event())
                .collect::<Result<Vec<_>>>()?,
        };
        if M == EVENTS_IGNORED {
            self.free.push(block.segment);
            return Ok(());
        }
        self.pending.push((block.segment, events));
        Ok(())
    }

    fn addr(block: &Block) -> u64 {
        block.segment.addr()
    }

    fn bytes(block: &Block) -> usize {
        block.segment.bytes()
    }
}
