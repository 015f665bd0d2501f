//! What learner code asks of the judge's device: one [`Call`] per public
//! method that touches a device, with the handles of the objects it is a
//! method of, its arguments and the caller's file and line.
//!
//! Compiled on every target (the front end builds a `Call` on its remote
//! path, which a wasm32 build never takes), so it is plain data.

use crate::calibration::Calibration;
use crate::decoder::DecoderConfig;
use crate::elem::{ElemKind, RawView, Scalar};
use crate::exec::{EventId, GraphId, HostId};
use crate::trace::{BackendKind, CallSite, StreamId};
use serde::{Deserialize, Serialize};

/// One call of learner code on a device of the judge's: which device, where
/// in the learner's source, and what.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// The device's handle (see [`super::DeviceRef`]).
    pub(crate) device: u32,
    /// The learner's call site, which the judge's device traces.
    pub(crate) site: CallSite,
    /// The call.
    pub(crate) what: What,
}

/// The calls, one per public method that reaches a device. Each says in its
/// comment what the judge answers (the `T` of a `Result<T, GpuError>`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum What {
    /// The device's name, backend, compute capability, memory and cost
    /// table: `Description`.
    Describe,
    /// `Device::now`: nanoseconds, `u64`.
    Now,
    /// `Device::new_stream`: `StreamId`.
    NewStream,
    /// `Device::new_event`: `EventId`.
    NewEvent,
    /// `Device::synchronize`: `()`.
    Synchronize,
    /// `Device::host_work`: `()`.
    HostWork { ns: u64 },
    /// `Device::alloc_segment`: its address, `u64`.
    AllocSegment { bytes: usize },
    /// `Device::free_segment`: `()`.
    FreeSegment { addr: u64 },
    /// The drop of a segment that was never freed: `()`.
    DropSegment { addr: u64 },
    /// `Device::alloc_pinned`: `HostId`.
    AllocPinned { elem: ElemKind, len: usize },
    /// `Device::view`, checked against the live allocations: `()`.
    CheckView {
        elem: ElemKind,
        addr: u64,
        len: usize,
    },
    /// `Stream::alloc_zeros`: its address, `u64`.
    AllocZeros {
        stream: StreamId,
        elem: ElemKind,
        len: usize,
    },
    /// The free of a buffer (`DeviceBuffer::free` or its drop): `()`.
    FreeBuffer { addr: u64 },
    /// `Stream::synchronize`: `()`.
    StreamSynchronize { stream: StreamId },
    /// `Stream::query`: `bool`.
    StreamQuery { stream: StreamId },
    /// `Stream::wait_event`: `()`.
    WaitEvent { stream: StreamId, event: EventId },
    /// `Stream::begin_capture`: `()`.
    BeginCapture { stream: StreamId },
    /// `Stream::end_capture`: `(GraphId, usize)`, the graph and its nodes.
    EndCapture { stream: StreamId },
    /// `Stream::is_capturing`: `bool`.
    IsCapturing { stream: StreamId },
    /// `Stream::copy_from_host`: `()`.
    CopyFromHost {
        stream: StreamId,
        src: Vec<u8>,
        dst: RawView,
    },
    /// `Stream::copy_to_host`: the bytes, `Vec<u8>`.
    CopyToHost { stream: StreamId, src: RawView },
    /// `Stream::copy_from_pinned`: `()`.
    CopyFromPinned {
        stream: StreamId,
        src: HostId,
        dst: RawView,
    },
    /// `Stream::copy_to_pinned`: `()`.
    CopyToPinned {
        stream: StreamId,
        src: RawView,
        dst: HostId,
    },
    /// `Stream::copy`: `()`.
    Copy {
        stream: StreamId,
        src: RawView,
        dst: RawView,
    },
    /// `Stream::spin`: `()`.
    Spin { stream: StreamId, ns: u64 },
    /// `Stream::fill`: `()`.
    Fill {
        stream: StreamId,
        dst: RawView,
        value: Scalar,
    },
    /// `Stream::sum` and `Stream::sum_after`: `()`.
    Sum {
        stream: StreamId,
        delay_ns: u64,
        src: RawView,
        out: RawView,
    },
    /// `Stream::argmax_rows`: `()`.
    ArgmaxRows {
        stream: StreamId,
        src: RawView,
        rows: usize,
        cols: usize,
        out: RawView,
    },
    /// `Stream::flag_eq`: `()`.
    FlagEq {
        stream: StreamId,
        src: RawView,
        value: i32,
        flags: RawView,
    },
    /// `Stream::count_eq`: `()`.
    CountEq {
        stream: StreamId,
        src: RawView,
        value: i32,
        out: RawView,
    },
    /// `Stream::affine`: `()`.
    Affine {
        stream: StreamId,
        x: RawView,
        a: f32,
        b: f32,
        y: RawView,
    },
    /// `Stream::decode_step`: `()`.
    DecodeStep {
        stream: StreamId,
        decoder: u32,
        tokens_in: RawView,
        tokens_out: RawView,
    },
    /// `Event::record`: `()`.
    RecordEvent { event: EventId, stream: StreamId },
    /// `Event::synchronize`: `()`.
    EventSynchronize { event: EventId },
    /// `Event::query`: `bool`.
    EventQuery { event: EventId },
    /// `Event::elapsed_ms`: `f32`.
    ElapsedMs { start: EventId, end: EventId },
    /// The drop of an event: `()`.
    DropEvent { event: EventId },
    /// `PinnedBuffer::to_vec`: the bytes, `Vec<u8>`.
    ReadPinned { host: HostId },
    /// `PinnedBuffer::write`: `()`.
    WritePinned { host: HostId, data: Vec<u8> },
    /// The drop of a pinned buffer: `()`.
    DropPinned { host: HostId },
    /// `Graph::launch`: `()`.
    LaunchGraph { graph: GraphId },
    /// The drop of a graph: `()`.
    DropGraph { graph: GraphId },
    /// `Decoder::new`: the decoder's handle, `u32`.
    NewDecoder {
        stream: StreamId,
        config: DecoderConfig,
    },
    /// The drop of a decoder: `()`.
    DropDecoder { decoder: u32 },
    /// `Device::range`: the range's place on the learner's stack, `u64`.
    OpenRange { name: String },
    /// The drop of a range's guard: `()`.
    CloseRange { place: u64 },
}

impl What {
    /// Whether the call is posted: it only queues work on a stream, records
    /// or waits on an event, replays a graph, frees, or takes the CPU's time
    /// (`host_work`), answers `()`, and no value of the learner's depends on
    /// when it is made. The learner's process does not wait for its answer
    /// but for the answer of the call before it (see `Link::post`).
    pub(crate) fn posted(&self) -> bool {
        matches!(
            self,
            Self::HostWork { .. }
                | Self::Spin { .. }
                | Self::Fill { .. }
                | Self::Sum { .. }
                | Self::ArgmaxRows { .. }
                | Self::FlagEq { .. }
                | Self::CountEq { .. }
                | Self::Affine { .. }
                | Self::DecodeStep { .. }
                | Self::Copy { .. }
                | Self::CopyFromPinned { .. }
                | Self::CopyToPinned { .. }
                | Self::RecordEvent { .. }
                | Self::WaitEvent { .. }
                | Self::LaunchGraph { .. }
                | Self::FreeBuffer { .. }
                | Self::DropSegment { .. }
                | Self::DropEvent { .. }
                | Self::DropPinned { .. }
                | Self::DropGraph { .. }
                | Self::DropDecoder { .. }
                | Self::CloseRange { .. }
        )
    }
}

/// What a device is, as the judge describes it to a proxy once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Description {
    pub(crate) backend: BackendKind,
    pub(crate) name: String,
    pub(crate) compute_capability: (u32, u32),
    pub(crate) total_memory: u64,
    pub(crate) calibration: Calibration,
}
