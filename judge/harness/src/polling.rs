//! A loop of queries is a wait: the one rule about polling that the suites
//! share (102's steady state and 104's sync report read it from the trace).
//!
//! `Event::query` and `Stream::query` never block, so the trace marks no
//! query as a call that can make the CPU wait. But a CPU that calls one
//! again and again until the GPU is done waits for the GPU as surely as a
//! synchronize does, and burns a core doing it. [`polling_loops`] finds
//! those in the calls of one step: a query made [`POLLING`] times or more
//! from one line of the learner's.

use gpu::{BlockReason, OpKind, TraceEntry};

/// A query called this many times from one line in one step is a loop that
/// polls the GPU.
pub const POLLING: usize = 3;

/// One line of the learner's that queried the GPU again and again in one step.
#[derive(Clone, Copy, Debug)]
pub struct PollingLoop<'t> {
    /// The line's first query of the step.
    pub first: &'t TraceEntry,
    /// How many times the line queried in the step.
    pub times: usize,
    /// The wait the loop stands for: `Event::synchronize` for event
    /// queries, `Stream::synchronize` for stream queries.
    pub waits_like: BlockReason,
}

/// The polling loops among `entries` (the calls of one step), in the order
/// of each line's first query.
pub fn polling_loops<'t>(
    entries: impl IntoIterator<Item = &'t TraceEntry>,
) -> Vec<PollingLoop<'t>> {
    let mut lines: Vec<PollingLoop<'t>> = Vec::new();
    for e in entries {
        let Some(waits_like) = stands_for(e.op) else {
            continue;
        };
        match lines.iter_mut().find(|l| l.first.site == e.site) {
            Some(line) => line.times += 1,
            None => lines.push(PollingLoop {
                first: e,
                times: 1,
                waits_like,
            }),
        }
    }
    lines.retain(|l| l.times >= POLLING);
    lines
}

/// The wait a query stands for when the CPU calls it in a loop.
fn stands_for(op: OpKind) -> Option<BlockReason> {
    match op {
        OpKind::EventQuery => Some(BlockReason::EventSynchronize),
        OpKind::StreamQuery => Some(BlockReason::StreamSynchronize),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu::{Backend, Device};
    use std::time::Duration;

    /// A trace with an event queried `event_times` times from one line, the
    /// stream `stream_times` times from another, and once more from a third.
    fn queries(event_times: usize, stream_times: usize) -> gpu::Trace {
        let device = Device::open(Backend::Virtual).unwrap();
        let stream = device.new_stream().unwrap();
        stream.spin(Duration::from_millis(1)).unwrap();
        let event = stream.record_event().unwrap();
        for _ in 0..event_times {
            event.query().unwrap();
        }
        for _ in 0..stream_times {
            stream.query().unwrap();
        }
        event.query().unwrap();
        device.trace()
    }

    #[test]
    fn a_line_that_queries_three_times_is_a_loop() {
        let trace = queries(3, 0);
        let loops = polling_loops(&trace.entries);
        assert_eq!(loops.len(), 1, "{loops:?}");
        assert_eq!(loops[0].times, 3);
        assert_eq!(loops[0].first.op, OpKind::EventQuery);
        assert_eq!(loops[0].waits_like, BlockReason::EventSynchronize);
    }

    #[test]
    fn queries_from_different_lines_are_counted_apart() {
        // Two event queries from the loop's line and one from another line
        // make three queries, but no line polls.
        let trace = queries(2, 2);
        assert!(polling_loops(&trace.entries).is_empty());
    }

    #[test]
    fn each_polling_line_is_its_own_loop_in_order() {
        let trace = queries(4, 5);
        let loops = polling_loops(&trace.entries);
        let found: Vec<_> = loops
            .iter()
            .map(|l| (l.first.op, l.times, l.waits_like))
            .collect();
        assert_eq!(
            found,
            [
                (OpKind::EventQuery, 4, BlockReason::EventSynchronize),
                (OpKind::StreamQuery, 5, BlockReason::StreamSynchronize),
            ]
        );
        assert!(loops[0].first.seq < loops[1].first.seq);
    }
}
