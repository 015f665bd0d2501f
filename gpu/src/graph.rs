//! CUDA graphs: work captured once from a stream, replayed with one launch.
//!
//! A graph replays the same kernels with the same arguments: the same
//! addresses, the same sizes. To feed it new inputs, copy them into the
//! buffers it was captured with before launching it; to keep its outputs,
//! copy them out before the next launch overwrites them.

use crate::core::Op;
use crate::error::{GpuError, Result};
use crate::exec::GraphId;
use crate::race::Range;
use crate::stream::Stream;
use crate::trace::{CallSite, OpKind};

/// What one captured operation reads and writes (for the race checker on replay).
#[derive(Clone, Debug)]
pub(crate) struct NodeAccess {
    pub(crate) ranges: Vec<Range>,
    pub(crate) what: String,
}

/// An instantiated graph, launched on the stream it was captured from.
pub struct Graph {
    stream: Stream,
    id: GraphId,
    nodes: usize,
    accesses: Vec<NodeAccess>,
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
        if let Ok(mut core) = self.stream.device().shared.try_borrow_mut() {
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
        // Only nodes that touch memory matter to the race checker on replay.
        let accesses = accesses
            .into_iter()
            .filter(|node| node.ranges.iter().any(|r| r.bytes > 0))
            .map(|node| NodeAccess {
                what: format!("graph node: {}", node.what),
                ..node
            })
            .collect();
        Self {
            stream,
            id,
            nodes,
            accesses,
        }
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
        let mut core = self.stream.device().core();
        if core.capture.is_some() {
            return Err(GpuError::CaptureState {
                op: "Graph::launch",
                detail: "a graph cannot be launched while a capture is in progress; end the capture first".into(),
                site,
            });
        }
        for node in &self.accesses {
            for r in node
                .ranges
                .iter()
                .filter(|r| r.addr < crate::race::HOST_BASE && r.bytes > 0)
            {
                core.check_range("Graph::launch", r.addr, r.bytes, site)?;
            }
        }
        let (id, stream) = (self.id, self.stream.id());
        let op = Op::new(
            OpKind::GraphLaunch,
            format!("graph ({} nodes)", self.nodes),
            site,
        )
        .on(stream);
        core.run(op, |exec| Ok(((), exec.launch_graph(id, stream)?)))?;
        for node in &self.accesses {
            core.race
                .on_stream_op(stream, &node.ranges, &node.what, site);
        }
        Ok(())
    }
}
