//! The interface between the safe front end and a backend.
//!
//! The front end (the safe API and its choke point, [`crate::core`]) checks
//! arguments, keeps the trace, the race checker and the capture rules, and
//! decides which calls may block.
//! A backend only carries the work out: the CUDA backend through cudarc, the
//! virtual GPU in its discrete-event model. Both receive exactly the same
//! calls, in the same order, so they have the same semantics by construction
//! wherever the front end decides, and the tests check the rest.

use crate::error::Result;
use crate::kernels::Kernel;
use crate::trace::{BackendKind, GpuSpan, StreamId};
use serde::{Deserialize, Serialize};

/// Identifies an event of one device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) struct EventId(pub(crate) u32);

/// Identifies a pinned host allocation of one device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) struct HostId(pub(crate) u32);

/// Identifies an instantiated graph of one device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) struct GraphId(pub(crate) u32);

/// What the device is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DeviceInfo {
    pub(crate) backend: BackendKind,
    pub(crate) name: String,
    pub(crate) compute_capability: (u32, u32),
    pub(crate) total_memory: u64,
}

/// When the GPU runs an operation, as far as the backend can tell at submit time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Span {
    /// Known already (the virtual GPU schedules at submit time).
    Known(GpuSpan),
    /// Timing events were recorded around it; [`Exec::resolve`] turns the
    /// token into times once the work is done.
    #[cfg_attr(
        not(all(feature = "cuda", not(target_arch = "wasm32"))),
        expect(dead_code, reason = "only the CUDA backend times with events")
    )]
    Pending(u64),
    /// Not timed, or recorded into a graph.
    None,
}

/// One copy, as the backend carries it out. Pageable host memory is the
/// caller's slice; pinned memory is a [`HostId`] and a byte offset.
pub(crate) enum Copy<'a> {
    /// From pageable host memory: the driver stages the bytes before returning.
    PageableToDevice { src: &'a [u8], dst: u64 },
    /// From pinned host memory: asynchronous, read when the copy runs.
    PinnedToDevice {
        src: HostId,
        offset: usize,
        bytes: usize,
        dst: u64,
    },
    /// Into pageable host memory: returns when the bytes are in `dst`.
    DeviceToPageable { src: u64, dst: &'a mut [u8] },
    /// Into pinned host memory: asynchronous, written when the copy runs.
    DeviceToPinned {
        src: u64,
        dst: HostId,
        offset: usize,
        bytes: usize,
    },
    /// Device to device, on the stream.
    DeviceToDevice { src: u64, dst: u64, bytes: usize },
}

impl Copy<'_> {
    /// Bytes the copy moves.
    pub(crate) fn bytes(&self) -> usize {
        match self {
            Self::PageableToDevice { src, .. } => src.len(),
            Self::DeviceToPageable { dst, .. } => dst.len(),
            Self::PinnedToDevice { bytes, .. }
            | Self::DeviceToPinned { bytes, .. }
            | Self::DeviceToDevice { bytes, .. } => *bytes,
        }
    }
}

/// A backend: the CUDA driver or the virtual GPU.
///
/// Calls on a stream that is capturing (between `begin_capture` and
/// `end_capture`) are recorded into the graph, not run; the front end only
/// sends calls that can be captured (launches, memsets, pinned and
/// device-to-device copies, event records and waits) to a capturing stream.
/// A stream that waits for an event recorded on a capturing stream joins
/// the capture (a fork), and its work is recorded into the same graph; each
/// backend follows that itself (the driver does, and the virtual GPU
/// records the edges). The front end ends a capture only once every stream
/// that joined has been joined back.
pub(crate) trait Exec {
    /// What the device is.
    fn info(&self) -> DeviceInfo;
    /// The CPU clock, in ns since the device opened.
    fn now_ns(&mut self) -> u64;
    /// Busy CPU work for `ns` nanoseconds.
    fn host_work(&mut self, ns: u64);

    /// A new non-blocking stream.
    fn create_stream(&mut self) -> Result<StreamId>;
    /// A new event with timing enabled.
    fn create_event(&mut self) -> Result<EventId>;

    /// Stream-ordered allocation (`cuMemAllocAsync`).
    fn malloc_async(&mut self, stream: StreamId, bytes: usize) -> Result<u64>;
    /// Stream-ordered free (`cuMemFreeAsync`).
    fn free_async(&mut self, stream: StreamId, addr: u64) -> Result<()>;
    /// Zero `bytes` at `addr`, in stream order.
    fn memset_zero(&mut self, stream: StreamId, addr: u64, bytes: usize) -> Result<Span>;
    /// `cuMemAlloc`: a raw segment.
    fn malloc_segment(&mut self, bytes: usize) -> Result<u64>;
    /// `cuMemFree`: waits for the whole device, then releases the segment.
    fn free_segment(&mut self, addr: u64) -> Result<()>;
    /// `cuMemHostAlloc(flags = 0)`: pinned, not write-combined, zeroed.
    fn alloc_pinned(&mut self, bytes: usize) -> Result<HostId>;
    /// `cuMemFreeHost`.
    fn free_pinned(&mut self, host: HostId) -> Result<()>;
    /// The CPU reads pinned memory (whatever is there now).
    fn read_pinned(&mut self, host: HostId, offset: usize, out: &mut [u8]);
    /// The CPU writes pinned memory.
    fn write_pinned(&mut self, host: HostId, offset: usize, data: &[u8]);

    /// Launch a kernel on a stream.
    fn launch(&mut self, stream: StreamId, kernel: &Kernel) -> Result<Span>;
    /// Copy on a stream.
    fn copy(&mut self, stream: StreamId, copy: Copy<'_>) -> Result<Span>;

    /// Record an event at the stream's current tail.
    fn record_event(&mut self, event: EventId, stream: StreamId) -> Result<()>;
    /// Make later work on `stream` wait for `event` (GPU side).
    fn wait_event(&mut self, stream: StreamId, event: EventId) -> Result<()>;
    /// CPU waits for a stream.
    fn sync_stream(&mut self, stream: StreamId) -> Result<()>;
    /// CPU waits for an event.
    fn sync_event(&mut self, event: EventId) -> Result<()>;
    /// CPU waits for the device.
    fn sync_device(&mut self) -> Result<()>;
    /// Is all work on the stream done? Never blocks.
    fn query_stream(&mut self, stream: StreamId) -> Result<bool>;
    /// Has the event completed (true if never recorded)? Never blocks.
    fn query_event(&mut self, event: EventId) -> Result<bool>;
    /// Milliseconds between two completed events (waits for both).
    fn elapsed_ms(&mut self, start: EventId, end: EventId) -> Result<f32>;

    /// Start recording work on `stream` into a graph.
    fn begin_capture(&mut self, stream: StreamId) -> Result<()>;
    /// Stop recording and instantiate the graph.
    fn end_capture(&mut self, stream: StreamId) -> Result<GraphId>;
    /// Stop recording and throw the capture away (it was invalidated).
    fn abort_capture(&mut self, stream: StreamId);
    /// Launch a graph on the stream it was captured on.
    fn launch_graph(&mut self, graph: GraphId, stream: StreamId) -> Result<Span>;
    /// Destroys an event; its id is never used again.
    fn destroy_event(&mut self, event: EventId);
    /// Destroys a graph; its id is never used again.
    fn destroy_graph(&mut self, graph: GraphId);
    /// Number of nodes in a graph.
    fn graph_nodes(&self, graph: GraphId) -> usize;

    /// Turn a pending span into times; may wait for the GPU.
    fn resolve(&mut self, token: u64) -> Option<GpuSpan>;
}
