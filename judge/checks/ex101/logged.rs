//! The scripted device with a log: [`Logged`] is the judge's `SimDriver`,
//! and it remembers what the allocator asked of it, so that a check can say
//! what one call did to the driver (the events it recorded and on which
//! streams, the segments it asked for and returned, the waits) and name the
//! call that broke a rule, not only the state it left.

use caching_allocator::{Driver, SimDriver, SimEvent, StreamId};

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
}

impl Logged {
    /// A device of `capacity` bytes, its log empty.
    pub(super) fn new(capacity: usize) -> Self {
        Self {
            sim: SimDriver::new(capacity),
            log: Vec::new(),
            events: Vec::new(),
        }
    }

    /// All work queued on `stream` so far completes ([`SimDriver::finish`]).
    pub(super) fn finish(&mut self, stream: StreamId) {
        self.sim.finish(stream);
    }

    /// The requests since the log was last taken, oldest first.
    pub(super) fn asked(&self) -> &[Asked] {
        &self.log
    }

    /// The requests since the last call, oldest first.
    pub(super) fn take(&mut self) -> Vec<Asked> {
        std::mem::take(&mut self.log)
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
        addr
    }

    fn free_segment(&mut self, addr: u64, bytes: usize) {
        self.log.push(Asked::Return { addr, bytes });
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
}
