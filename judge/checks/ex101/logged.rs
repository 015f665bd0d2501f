//! The scripted device with a log: [`Logged`] is the judge's `SimDriver`,
//! and it remembers what the allocator asked of it, so that a check can say
//! what one call did to the driver (the events it recorded and on which
//! streams, the segments it asked for and returned, the waits) and name the
//! call that broke a rule, not only the state it left. A segment returned
//! that the driver never handed out, returned twice or with another size
//! ends the check with that rule (`SimDriver` would panic in the judge's
//! own code, which tells the learner nothing).

use super::support::bytes;
use caching_allocator::{Driver, SimDriver, SimEvent, StreamId};
use judge_harness::Failure;
use std::collections::BTreeMap;

/// One request of the allocator to the driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Asked {
    /// `alloc_segment(bytes)`, and whether the driver gave it.
    Segment { bytes: usize, granted: bool },
    /// `free_segment(addr, bytes)`.
    Return { addr: u64, bytes: usize },
    /// `record_event(stream)`.
    Event(StreamId),
    /// `wait_event` on an event of this stream.
    Wait(StreamId),
}

/// [`SimDriver`], logging each request since the log was last taken.
#[derive(Debug)]
pub(super) struct Logged {
    sim: SimDriver,
    log: Vec<Asked>,
    /// Each event handed out, with its stream (a `SimEvent` keeps it private).
    events: Vec<(SimEvent, StreamId)>,
    /// The segments handed out and not returned: address and size.
    held: BTreeMap<u64, usize>,
    /// Every segment ever handed out, for a second return.
    returned: BTreeMap<u64, usize>,
}

impl Logged {
    /// A device of `capacity` bytes, its log empty.
    pub(super) fn new(capacity: usize) -> Self {
        Self {
            sim: SimDriver::new(capacity),
            log: Vec::new(),
            events: Vec::new(),
            held: BTreeMap::new(),
            returned: BTreeMap::new(),
        }
    }

    /// All work queued on `stream` so far completes ([`SimDriver::finish`]).
    pub(super) fn finish(&mut self, stream: StreamId) {
        self.sim.finish(stream);
    }

    /// `stream` has done the work queued before the `n`-th event recorded on
    /// it (counted from 1), and none after: that event has completed and
    /// every later one on `stream` is still pending. Not logged: the test's
    /// doing, not the allocator's.
    pub(super) fn reach(&mut self, stream: StreamId, n: usize) {
        if let Some(&(event, _)) = self.events.iter().filter(|(_, s)| *s == stream).nth(n - 1) {
            self.sim.wait_event(&event);
        }
    }

    /// The requests since the log was last taken, oldest first.
    pub(super) fn asked(&self) -> &[Asked] {
        &self.log
    }

    /// The requests since the last call, oldest first.
    pub(super) fn take(&mut self) -> Vec<Asked> {
        std::mem::take(&mut self.log)
    }

    /// Why `free_segment(addr, bytes)` breaks the driver's rule, if it does:
    /// a segment goes back once, whole, as `alloc_segment` handed it out.
    fn misuse(&self, addr: u64, bytes: usize) -> Option<Failure> {
        let call = format!("`free_segment({addr:#x}, {})`", self::bytes(bytes));
        let actual = match (self.held.get(&addr), self.returned.get(&addr)) {
            (Some(&size), _) if size == bytes => return None,
            (Some(&size), _) if bytes < size => format!(
                "the allocator called {call}, but the segment at {addr:#x} has {}: {} is the size of a block of it, so a segment that was not wholly free went back (its first block free, others after it still in use). A segment goes back only when all of it is one free block, and then whole, with the size `alloc_segment` was asked for",
                self::bytes(size),
                self::bytes(bytes)
            ),
            (Some(&size), _) => format!(
                "the allocator called {call}, but the segment at {addr:#x} has {}: a segment goes back whole, with the size `alloc_segment` was asked for",
                self::bytes(size)
            ),
            (None, Some(_)) => format!(
                "the allocator called {call} for a segment it had returned already: a segment freed twice"
            ),
            (None, None) => format!(
                "the allocator called {call}, but `alloc_segment` never handed out a segment there: a `free` of a block's address, or of a segment's inner block, is not a segment"
            ),
        };
        Some(
            Failure::new(
                "every segment given back to the driver once, whole, at the address `alloc_segment` returned",
                actual,
            )
            .detail("the allocator returns a segment only when all of it is one free block (`empty_cache`, or the retry after a refused segment), then forgets it; see allocator.md#segments"),
        )
    }

    fn stream_of(&self, event: &SimEvent) -> StreamId {
        self.events
            .iter()
            .find(|(e, _)| e == event)
            .map_or(StreamId(u32::MAX), |&(_, s)| s)
    }
}

impl Driver for Logged {
    type Event = SimEvent;

    fn alloc_segment(&mut self, bytes: usize) -> Option<u64> {
        let addr = self.sim.alloc_segment(bytes);
        self.log.push(Asked::Segment {
            bytes,
            granted: addr.is_some(),
        });
        if let Some(addr) = addr {
            self.held.insert(addr, bytes);
        }
        addr
    }

    fn free_segment(&mut self, addr: u64, bytes: usize) {
        self.log.push(Asked::Return { addr, bytes });
        if let Some(why) = self.misuse(addr, bytes) {
            why.raise();
        }
        self.held.remove(&addr);
        self.returned.insert(addr, bytes);
        self.sim.free_segment(addr, bytes);
    }

    fn record_event(&mut self, stream: StreamId) -> SimEvent {
        self.log.push(Asked::Event(stream));
        let event = self.sim.record_event(stream);
        self.events.push((event, stream));
        event
    }

    fn event_done(&mut self, event: &SimEvent) -> bool {
        self.sim.event_done(event)
    }

    fn wait_event(&mut self, event: &SimEvent) {
        self.log.push(Asked::Wait(self.stream_of(event)));
        self.sim.wait_event(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_names_each_request_once() {
        let mut d = Logged::new(4 << 20);
        let s = StreamId(1);
        assert_eq!(d.alloc_segment(2 << 20), Some(0));
        assert_eq!(d.alloc_segment(4 << 20), None);
        let e = d.record_event(s);
        d.wait_event(&e);
        d.free_segment(0, 2 << 20);
        assert_eq!(
            d.take(),
            [
                Asked::Segment {
                    bytes: 2 << 20,
                    granted: true
                },
                Asked::Segment {
                    bytes: 4 << 20,
                    granted: false
                },
                Asked::Event(s),
                Asked::Wait(s),
                Asked::Return {
                    addr: 0,
                    bytes: 2 << 20
                },
            ]
        );
        assert!(d.take().is_empty(), "taken once");
    }

    #[test]
    fn a_segment_returned_wrongly_is_named_by_the_rule_it_breaks() {
        let mut d = Logged::new(8 << 20);
        let base = d.alloc_segment(2 << 20).expect("room");
        let why = |d: &Logged, addr, bytes| d.misuse(addr, bytes).map(|f| f.actual);
        assert_eq!(why(&d, base, 2 << 20), None);
        let smaller = why(&d, base, 1 << 20).expect("another size");
        assert!(smaller.contains("has 2 MiB"), "{smaller}");
        assert!(smaller.contains("was not wholly free"), "{smaller}");
        assert!(
            why(&d, base + 512, 512)
                .expect("inside")
                .contains("never handed out")
        );
        d.free_segment(base, 2 << 20);
        assert!(
            why(&d, base, 2 << 20)
                .expect("again")
                .contains("freed twice")
        );
    }
}
