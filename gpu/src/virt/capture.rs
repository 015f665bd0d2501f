//! Captures and graphs of the virtual GPU: the nodes a capture records, each
//! with the nodes it depends on, and their replay.
//!
//! A capture that stays on one stream records a chain: each node depends on
//! the one before. One that forks (another stream waits for an event recorded
//! inside the capture) records branches: a node depends on the last node of
//! its own stream and on the nodes the events its stream waited for stand
//! for. A replay starts each node once the nodes it depends on have ended and
//! its engine is free, so branches run side by side, as a CUDA graph's do.

use super::{Node, VirtualGpu};
use crate::exec::{EventId, Span};
use crate::trace::{GpuSpan, StreamId};
use std::collections::BTreeMap;

/// A node of a graph and the nodes (by index) it waits for.
#[derive(Clone, Debug)]
pub(super) struct GraphNode {
    pub(super) node: Node,
    pub(super) deps: Vec<usize>,
}

/// A capture in progress.
#[derive(Debug)]
pub(super) struct Recording {
    /// The stream that began it.
    pub(super) origin: StreamId,
    /// What it has recorded so far.
    pub(super) nodes: Vec<GraphNode>,
    /// Per stream of the capture, the nodes its next node depends on.
    frontier: BTreeMap<StreamId, Vec<usize>>,
    /// Per event recorded inside the capture, the nodes it stands for.
    events: BTreeMap<EventId, Vec<usize>>,
}

impl Recording {
    /// A capture of `origin` that has recorded nothing.
    pub(super) fn new(origin: StreamId) -> Self {
        Self {
            origin,
            nodes: Vec::new(),
            frontier: BTreeMap::from([(origin, Vec::new())]),
            events: BTreeMap::new(),
        }
    }

    /// Records `node` if `stream` is in the capture; gives it back if not.
    pub(super) fn push(&mut self, stream: StreamId, node: Node) -> Option<Node> {
        let Some(frontier) = self.frontier.get_mut(&stream) else {
            return Some(node);
        };
        let deps = std::mem::replace(frontier, vec![self.nodes.len()]);
        self.nodes.push(GraphNode { node, deps });
        None
    }

    /// `event` recorded on `stream`: true if that is an edge of the graph
    /// (`stream` is in the capture). Recorded elsewhere, the event leaves the
    /// capture.
    pub(super) fn record(&mut self, event: EventId, stream: StreamId) -> bool {
        match self.frontier.get(&stream) {
            Some(frontier) => {
                self.events.insert(event, frontier.clone());
                true
            }
            None => {
                self.events.remove(&event);
                false
            }
        }
    }

    /// `stream` waits for `event`: true if the event was recorded inside the
    /// capture, which `stream` then joins if it was not in it.
    pub(super) fn wait(&mut self, stream: StreamId, event: EventId) -> bool {
        let Some(carried) = self.events.get(&event) else {
            return false;
        };
        let frontier = self.frontier.entry(stream).or_default();
        for node in carried {
            if !frontier.contains(node) {
                frontier.push(*node);
            }
        }
        true
    }
}

impl VirtualGpu {
    /// Runs a graph's nodes on `stream`: each starts once the nodes it
    /// depends on have ended (the first ones once the stream is ready), and
    /// the stream is ready again when the last has ended.
    pub(super) fn replay(&mut self, nodes: &[GraphNode], stream: StreamId) -> Span {
        let ready = *self.stream_ready(stream);
        let mut ends = Vec::with_capacity(nodes.len());
        let mut whole: Option<GpuSpan> = None;
        for GraphNode { node, deps } in nodes {
            let after = deps.iter().map(|&d| ends[d]).fold(ready, u64::max);
            let duration = self.node_ns(node, true);
            let span = self.place(after, node.engine, duration, node.effect.clone());
            ends.push(span.end_ns);
            whole = Some(match whole {
                None => span,
                Some(w) => GpuSpan {
                    start_ns: w.start_ns.min(span.start_ns),
                    end_ns: w.end_ns.max(span.end_ns),
                },
            });
        }
        let Some(whole) = whole else {
            return Span::None;
        };
        *self.stream_ready(stream) = ready.max(whole.end_ns);
        Span::Known(whole)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::virt::{Effect, Engine};

    fn memset(addr: u64) -> Node {
        Node {
            engine: Engine::Compute,
            effect: Effect::Memset { addr, bytes: 4 },
            copy_bytes: 0,
        }
    }

    fn deps(recording: &Recording) -> Vec<Vec<usize>> {
        recording.nodes.iter().map(|n| n.deps.clone()).collect()
    }

    #[test]
    fn one_stream_records_a_chain() {
        let (s, other) = (StreamId(1), StreamId(2));
        let mut r = Recording::new(s);
        for addr in [0, 4, 8] {
            assert!(r.push(s, memset(addr)).is_none());
        }
        assert!(r.push(other, memset(12)).is_some(), "not in the capture");
        assert_eq!(deps(&r), [vec![], vec![0], vec![1]]);
    }

    #[test]
    fn a_fork_records_two_branches_and_the_join_waits_for_both() {
        let (s, t) = (StreamId(1), StreamId(2));
        let (fork, join) = (EventId(0), EventId(1));
        let mut r = Recording::new(s);
        r.push(s, memset(0)); // 0
        assert!(r.record(fork, s));
        assert!(r.wait(t, fork), "t joins");
        r.push(s, memset(4)); // 1, after 0
        r.push(t, memset(8)); // 2, after 0 too
        assert!(r.record(join, t));
        assert!(r.wait(s, join));
        r.push(s, memset(12)); // 3, after 1 and 2
        assert_eq!(deps(&r), [vec![], vec![0], vec![0], vec![1, 2]]);
    }

    #[test]
    fn an_event_recorded_outside_the_capture_is_no_edge() {
        let (s, t) = (StreamId(1), StreamId(2));
        let e = EventId(0);
        let mut r = Recording::new(s);
        assert!(r.record(e, s));
        assert!(!r.record(e, t), "recorded again outside");
        assert!(!r.wait(t, e));
        assert!(r.push(t, memset(0)).is_some(), "t did not join");
    }
}
