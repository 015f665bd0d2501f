//! [`SimDriver`]: the scripted device of the starter's `src/sim.rs`, as the
//! judge keeps it (the checks drive the learner's allocator over the
//! judge's copy, not over one the learner could change).
//!
//! Memory is a bump pointer: segments get addresses from 0 upward and an
//! address is never handed out twice, so a layout is the same on every run.
//! Streams run only when told: an event recorded on a stream stays pending
//! until the check calls [`SimDriver::finish`] on that stream, or until the
//! CPU waits for it.

use crate::{Driver, StreamId};
use std::collections::BTreeMap;

/// The scripted device. It refuses a segment that would take the reserved
/// total above its capacity, and panics when asked to free a segment it
/// never handed out (a bug in the allocator, not a condition to handle).
#[derive(Debug)]
pub struct SimDriver {
    capacity: usize,
    reserved: usize,
    next_addr: u64,
    segments: BTreeMap<u64, usize>,
    recorded: BTreeMap<StreamId, u64>,
    finished: BTreeMap<StreamId, u64>,
}

/// An event of [`SimDriver`]: the `seq`-th event recorded on `stream`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimEvent {
    stream: StreamId,
    seq: u64,
}

impl SimDriver {
    /// A device with `capacity` bytes and idle streams.
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            reserved: 0,
            next_addr: 0,
            segments: BTreeMap::new(),
            recorded: BTreeMap::new(),
            finished: BTreeMap::new(),
        }
    }

    /// All work queued on `stream` so far completes: every event recorded
    /// on it until now is done.
    pub fn finish(&mut self, stream: StreamId) {
        let recorded = self.recorded.get(&stream).copied().unwrap_or(0);
        self.finished.insert(stream, recorded);
    }

    fn is_done(&self, event: &SimEvent) -> bool {
        self.finished.get(&event.stream).copied().unwrap_or(0) >= event.seq
    }
}

impl Driver for SimDriver {
    type Event = SimEvent;

    fn alloc_segment(&mut self, bytes: usize) -> Option<u64> {
        if self.reserved + bytes > self.capacity {
            return None;
        }
        let addr = self.next_addr;
        self.next_addr += bytes as u64;
        self.reserved += bytes;
        self.segments.insert(addr, bytes);
        Some(addr)
    }

    fn free_segment(&mut self, addr: u64, bytes: usize) {
        match self.segments.remove(&addr) {
            Some(size) if size == bytes => self.reserved -= bytes,
            Some(size) => panic!(
                "free_segment({addr:#x}, {bytes}): the segment at {addr:#x} has {size} bytes"
            ),
            None => panic!("free_segment({addr:#x}, {bytes}): no segment starts there"),
        }
    }

    fn record_event(&mut self, stream: StreamId) -> SimEvent {
        let seq = self.recorded.entry(stream).or_insert(0);
        *seq += 1;
        SimEvent { stream, seq: *seq }
    }

    fn event_done(&mut self, event: &SimEvent) -> bool {
        self.is_done(event)
    }

    fn wait_event(&mut self, event: &SimEvent) {
        let finished = self.finished.entry(event.stream).or_insert(0);
        *finished = (*finished).max(event.seq);
    }
}
