//! [`SimDriver`]: a scripted device for tests, with no GPU and no threads.
//!
//! Memory is a bump pointer: segments get addresses from 0 upward and an
//! address is never handed out twice, so a layout is the same on every run.
//! Streams run only when told: an event recorded on a stream stays pending
//! until the test calls [`SimDriver::finish`] on that stream (the work queued
//! before the event has completed), or until the CPU waits for it.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_grow_and_capacity_holds() {
        let mut sim = SimDriver::new(10);
        assert_eq!(sim.alloc_segment(4), Some(0));
        assert_eq!(sim.alloc_segment(4), Some(4));
        assert_eq!(sim.alloc_segment(4), None);
        sim.free_segment(0, 4);
        assert_eq!(sim.alloc_segment(4), Some(8), "addresses are never reused");
    }

    #[test]
    fn events_complete_when_their_stream_finishes_or_is_waited_for() {
        let mut sim = SimDriver::new(0);
        let (s1, s2) = (StreamId(1), StreamId(2));
        let a = sim.record_event(s1);
        let b = sim.record_event(s2);
        assert!(!sim.event_done(&a));
        sim.finish(s1);
        assert!(sim.event_done(&a) && !sim.event_done(&b));
        let later = sim.record_event(s1);
        assert!(
            !sim.event_done(&later),
            "work recorded after finish is pending"
        );
        sim.wait_event(&b);
        assert!(sim.event_done(&b));
    }
}
