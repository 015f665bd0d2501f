//! CUDA graphs: work captured once from a stream, replayed with one launch.
//!
//! A graph replays the same kernels with the same arguments: the same
//! addresses, the same sizes. To feed it new inputs, copy them into the
//! buffers it was captured with before launching it; to keep its outputs,
//! copy them out before the next launch overwrites them.

use crate::core::{NodeAccess, Op, Race};
use crate::error::Result;
use crate::exec::GraphId;
use crate::label::Label;
use crate::race::Ranges;
use crate::remote::What;
use crate::stream::Stream;
use crate::trace::{CallSite, OpKind};
use std::collections::HashMap;
use std::rc::Rc;

// The unit tests at the end build node accesses from ranges.
#[cfg(test)]
use crate::race::Range;

/// The memory a graph's nodes touch, merged for replay: each distinct range
/// once (a write if any node writes it), grouped under the first node that
/// touches it.
///
/// The nodes of a graph never race with one another at replay: on one
/// stream they run in order, and the branches of a capture across streams
/// were checked against one another when it was captured. Against other
/// streams, only the union of their accesses counts (the whole graph runs,
/// and completes, on its stream).
/// Merged, a replay costs the race checker a few ranges (one per buffer the
/// graph uses) instead of every range of every node, so that a launch stays
/// cheap whatever the number of kernels in it, as the driver's does.
fn merge(accesses: Vec<NodeAccess>) -> Vec<NodeAccess> {
    let mut groups: Vec<NodeAccess> = Vec::new();
    let mut seen: HashMap<(u64, u64), (usize, usize)> = HashMap::new();
    for (node, access) in accesses.iter().enumerate() {
        let mut group = None;
        for range in access.ranges.iter().filter(|r| r.bytes > 0) {
            if let Some(&(g, i)) = seen.get(&(range.addr, range.bytes)) {
                groups[g].ranges[i].write |= range.write;
                continue;
            }
            let g = *group.get_or_insert_with(|| {
                groups.push(NodeAccess {
                    ranges: Ranges::default(),
                    what: format!("graph node {node}: {}", access.what).into(),
                });
                groups.len() - 1
            });
            seen.insert((range.addr, range.bytes), (g, groups[g].ranges.len()));
            groups[g].ranges.push(*range);
        }
    }
    groups
}

/// An instantiated graph, launched on the stream it was captured from.
pub struct Graph {
    stream: Stream,
    id: GraphId,
    nodes: usize,
    /// What replays read and write, merged (see [`merge`]).
    accesses: Rc<[NodeAccess]>,
    /// The name of each launch in the trace, "graph (64 nodes)", made once.
    name: Label,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Graph({} nodes on stream {})",
            self.nodes,
            self.stream.id()
        )
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        if let Some(remote) = self.stream.device().proxy() {
            let site = CallSite::internal("drop of a Graph");
            return remote.forget(site, What::DropGraph { graph: self.id });
        }
        if let Some(mut core) = self.stream.device().try_core() {
            core.exec.destroy_graph(self.id);
        }
    }
}

impl Graph {
    pub(crate) fn new(
        stream: Stream,
        id: GraphId,
        nodes: usize,
        accesses: Vec<NodeAccess>,
    ) -> Self {
        Self {
            stream,
            id,
            nodes,
            accesses: merge(accesses).into(),
            name: format!("graph ({nodes} nodes)").into(),
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn id(&self) -> GraphId {
        self.id
    }

    /// Number of operations in the graph.
    pub fn len(&self) -> usize {
        self.nodes
    }

    /// True for a graph with no operations.
    pub fn is_empty(&self) -> bool {
        self.nodes == 0
    }

    /// The stream the graph runs on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// Queues the whole graph with one launch: a few microseconds of CPU,
    /// whatever the number of kernels in it.
    #[track_caller]
    pub fn launch(&self) -> Result<()> {
        let site = CallSite::caller();
        if let Some(remote) = self.stream.device().proxy() {
            return remote.call(site, What::LaunchGraph { graph: self.id });
        }
        let (id, stream) = (self.id, self.stream.id());
        let op = Op::new(OpKind::GraphLaunch, self.name.clone(), site)
            .on(stream)
            .race(Race::Replay(Rc::clone(&self.accesses)));
        self.stream
            .device()
            .core()
            .run(&op, |exec| Ok(((), exec.launch_graph(id, stream)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(what: &'static str, ranges: &[(u64, u64, bool)]) -> NodeAccess {
        NodeAccess {
            what: what.into(),
            ranges: ranges
                .iter()
                .map(|&(addr, bytes, write)| Range { addr, bytes, write })
                .collect(),
        }
    }

    #[test]
    fn a_layer_stack_merges_to_one_range_per_buffer() {
        // x -> a -> b -> a -> ... -> y: 64 nodes over four buffers.
        let (x, a, b, y) = (0x1000, 0x2000, 0x3000, 0x4000);
        let mut nodes = vec![node("affine_f32", &[(x, 64, false), (a, 64, true)])];
        for i in 1..63 {
            let (src, dst) = if i % 2 == 1 { (a, b) } else { (b, a) };
            nodes.push(node("affine_f32", &[(src, 64, false), (dst, 64, true)]));
        }
        nodes.push(node("affine_f32", &[(b, 64, false), (y, 64, true)]));
        let merged = merge(nodes);
        let ranges: Vec<(u64, bool)> = merged
            .iter()
            .flat_map(|g| g.ranges.iter().map(|r| (r.addr, r.write)))
            .collect();
        assert_eq!(ranges, [(x, false), (a, true), (b, true), (y, true)]);
        assert_eq!(merged[0].what.to_string(), "graph node 0: affine_f32");
        let last = &merged.last().unwrap().what;
        assert_eq!(last.to_string(), "graph node 63: affine_f32");
    }

    #[test]
    fn a_range_read_first_and_written_later_counts_as_written() {
        let merged = merge(vec![
            node("sum_f32", &[(0x1000, 64, false), (0x2000, 4, true)]),
            node("fill_f32", &[(0x1000, 64, true)]),
            node("empty", &[(0x5000, 0, true)]),
        ]);
        assert_eq!(merged.len(), 1);
        assert!(merged[0].ranges[0].write, "{merged:?}");
        assert_eq!(merged[0].ranges.len(), 2);
    }
}
