//! One call, as the choke point sees it: what it is, what a capture in
//! progress means for it ([`Op::capture_rule`]), and what it tells the race
//! checker once it has run ([`Race`]).

use crate::exec::EventId;
use crate::label::Label;
use crate::race::Ranges;
use crate::trace::{BlockReason, CallSite, OpKind, StreamId};
use std::rc::Rc;

/// One call, as the choke point sees it.
pub(crate) struct Op {
    /// What kind of call (the trace's name for it).
    pub(crate) kind: OpKind,
    /// A short label for the trace: the kernel's name, the copy's direction.
    pub(crate) name: Label,
    /// The stream the call targets, if any.
    pub(crate) stream: Option<StreamId>,
    /// Bytes moved or allocated.
    pub(crate) bytes: u64,
    /// The caller's location.
    pub(crate) site: CallSite,
    /// Why the call can block the CPU, if it can.
    pub(crate) blocking: Option<BlockReason>,
    /// What the call tells the race checker once it has run, in order.
    pub(crate) race: Effects,
}

impl Op {
    /// A call of `kind`, labelled `name`, made at `site`: on no stream, of no
    /// bytes, never blocking, with no race effect until the builders below say so.
    pub(crate) fn new(kind: OpKind, name: impl Into<Label>, site: CallSite) -> Self {
        Self {
            kind,
            name: name.into(),
            stream: None,
            bytes: 0,
            site,
            blocking: None,
            race: Effects::default(),
        }
    }

    /// Made on `stream`.
    pub(crate) fn on(mut self, stream: StreamId) -> Self {
        self.stream = Some(stream);
        self
    }

    /// Moving or allocating `bytes`.
    pub(crate) fn bytes(mut self, bytes: u64) -> Self {
        self.bytes = bytes;
        self
    }

    /// Able to block the CPU, for `reason`.
    pub(crate) fn blocking(mut self, reason: BlockReason) -> Self {
        self.blocking = Some(reason);
        self
    }

    /// Adds `effect` to what the call tells the race checker.
    pub(crate) fn race(mut self, effect: Race) -> Self {
        self.add_race(effect);
        self
    }

    /// [`Op::race`] in place, for the hot path of a launch: returning the
    /// call by value from the builder copies all of it (a few hundred bytes).
    #[inline]
    pub(crate) fn add_race(&mut self, effect: Race) {
        self.race.push(effect);
    }

    /// The name of the call, as errors show it.
    pub(crate) fn static_name(&self) -> &'static str {
        static_name(self.kind)
    }

    /// What a capture in progress means for this call: the one list of what
    /// a capture allows.
    pub(crate) fn capture_rule(&self) -> CaptureRule {
        use CaptureRule::*;
        use OpKind::*;
        match self.kind {
            CreateStream | CreateEvent | HostRead | HostWrite | HostWork => Unaffected,
            CopyHostToDevice | CopyDeviceToHost if self.blocking.is_some() => BlockingWork,
            Launch | Memset | CopyHostToDevice | CopyDeviceToHost | CopyDeviceToDevice => Work,
            Alloc => Illegal("allocate static buffers before the capture begins"),
            AllocSegment => Illegal("allocate device memory before the capture begins"),
            AllocPinned => Illegal("allocate pinned memory before the capture begins"),
            StreamQuery | EventQuery => Illegal("a query observes the GPU from the CPU"),
            StreamSynchronize | EventSynchronize | EventElapsed | DeviceSynchronize
            | FreeSegment | FreePinned => Illegal(BLOCKS),
            Free => IllegalOnCapturingStream("a buffer may not be freed on a capturing stream"),
            EventRecord | StreamWaitEvent => Edge,
            BeginCapture => OutsideCapture(|capturing| {
                format!("stream {capturing} is already capturing; end that capture first")
            }),
            GraphLaunch => OutsideCapture(|_| {
                "a graph cannot be launched while a capture is in progress; end the capture first"
                    .into()
            }),
            EndCapture => EndsCapture,
        }
    }
}

/// Why a call that can block the CPU is illegal in a capture.
pub(crate) const BLOCKS: &str = "it would make the CPU wait for the GPU";

/// What a capture in progress means for a call (see [`Op::capture_rule`]).
///
/// A refusal that invalidates the capture returns
/// [`crate::GpuError::IllegalInCapture`], and `end_capture` then reports
/// [`crate::GpuError::CaptureInvalidated`], as CUDA does. A refusal that
/// leaves the capture alone returns [`crate::GpuError::CaptureState`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum CaptureRule {
    /// A capture changes nothing: creating streams and events, CPU work, the
    /// CPU's reads and writes of pinned memory.
    Unaffected,
    /// GPU work queued on a stream: recorded into the graph on a stream of
    /// the capture (refused there once an illegal call invalidated the
    /// capture), run as usual on other streams.
    Work,
    /// GPU work that can make the CPU wait (a copy from or into pageable
    /// memory): refused on an invalidated capturing stream like [`Self::Work`],
    /// and otherwise illegal in any capture, like every call that can block.
    BlockingWork,
    /// An event recorded, or waited for: on a stream of the capture, an
    /// edge of its graph (a stream that waits for an event recorded inside
    /// the capture joins it); refused where a stream of the capture waits for
    /// an event recorded outside it.
    Edge,
    /// Illegal while any stream captures, for the reason given.
    Illegal(&'static str),
    /// Illegal on a stream of the capture, for the reason given; allowed on others.
    IllegalOnCapturingStream(&'static str),
    /// Refused while any stream captures, leaving that capture alone; the
    /// function writes the detail from the capturing stream.
    OutsideCapture(fn(StreamId) -> String),
    /// Ends the capture of its stream (`end_capture`): refused where that
    /// stream is not capturing, and where an illegal call invalidated the capture.
    EndsCapture,
}

impl CaptureRule {
    /// Whether the call is recorded into the graph when made on the capturing stream.
    pub(crate) fn records(self) -> bool {
        matches!(self, Self::Work | Self::BlockingWork)
    }
}

/// What one operation on a stream reads and writes, and what to call it in a
/// race report: a node of a captured graph, or work queued on its own.
#[derive(Clone, Debug)]
pub(crate) struct NodeAccess {
    pub(crate) ranges: Ranges,
    pub(crate) what: Label,
}

impl NodeAccess {
    /// `ranges`, touched by what a race report calls `what`.
    pub(crate) fn new(ranges: impl Into<Ranges>, what: impl Into<Label>) -> Self {
        Self {
            ranges: ranges.into(),
            what: what.into(),
        }
    }
}

/// What a call tells the race checker, in order: at most two effects
/// (`elapsed_ms` waits for two events, `free_segment` waits and frees), kept
/// inline so that no call allocates for them.
#[derive(Debug, Default)]
pub(crate) struct Effects([Option<Race>; 2]);

impl Effects {
    /// Adds `effect` after the others.
    ///
    /// # Panics
    /// With two effects there already (a bug in the crate: no call has more).
    #[inline]
    fn push(&mut self, effect: Race) {
        // Matched slot by slot, so that a call's first effect, built where
        // the call is, is written straight into the first slot.
        match &mut self.0 {
            [first @ None, _] => *first = Some(effect),
            [_, second @ None] => *second = Some(effect),
            _ => panic!("a call has at most two race effects"),
        }
    }

    /// The effects, in order.
    #[inline]
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Race> {
        self.0.iter().flatten()
    }
}

/// What a call tells the race checker once it has run. The stream meant is
/// the call's own ([`Op::on`]); the choke point applies each effect in
/// [`crate::core::Core`]'s `apply_race`, the one place that updates the checker.
#[derive(Debug)]
pub(crate) enum Race {
    /// GPU work on the call's stream touches this memory (the views it
    /// names are checked against the live allocations first). On the
    /// capturing stream it becomes a node of the graph instead.
    Access(NodeAccess),
    /// A graph replay on the call's stream: the accesses of its nodes,
    /// merged (their views are checked too).
    Replay(Rc<[NodeAccess]>),
    /// The CPU touches pinned memory.
    Cpu(NodeAccess),
    /// The CPU knows that everything queued on the call's stream has finished.
    StreamDone,
    /// The CPU knows that the work before this event has finished.
    EventDone(EventId),
    /// The CPU knows that the whole device is idle.
    DeviceDone,
    /// This event is recorded on the call's stream.
    Record(EventId),
    /// The call's stream waits for this event.
    Wait(EventId),
    /// `[addr, addr + bytes)` is freed: in the call's stream order, or, for a
    /// call on no stream, after waiting for the device; `allocated_at` is
    /// where it was allocated, when known.
    Free {
        addr: u64,
        bytes: u64,
        allocated_at: Option<CallSite>,
    },
}

impl Race {
    /// The accesses of GPU work whose views must lie in live allocations.
    #[inline]
    pub(crate) fn gpu_accesses(&self) -> &[NodeAccess] {
        match self {
            Self::Access(node) => std::slice::from_ref(node),
            Self::Replay(nodes) => nodes,
            _ => &[],
        }
    }
}

/// The name of a call, as errors show it.
pub(super) fn static_name(kind: OpKind) -> &'static str {
    match kind {
        OpKind::CreateStream => "new_stream",
        OpKind::CreateEvent => "new_event",
        OpKind::Launch => "launch",
        OpKind::CopyHostToDevice => "copy to device",
        OpKind::CopyDeviceToHost => "copy to host",
        OpKind::CopyDeviceToDevice => "copy",
        OpKind::Memset => "memset",
        OpKind::Alloc => "alloc_zeros",
        OpKind::Free => "free",
        OpKind::AllocSegment => "alloc_segment",
        OpKind::FreeSegment => "free_segment",
        OpKind::AllocPinned => "alloc_pinned",
        OpKind::FreePinned => "free of a pinned buffer",
        OpKind::HostRead => "pinned read",
        OpKind::HostWrite => "pinned write",
        OpKind::EventRecord => "record",
        OpKind::StreamWaitEvent => "wait_event",
        OpKind::EventSynchronize => "Event::synchronize",
        OpKind::EventQuery => "Event::query",
        OpKind::EventElapsed => "elapsed_ms",
        OpKind::StreamSynchronize => "Stream::synchronize",
        OpKind::StreamQuery => "Stream::query",
        OpKind::DeviceSynchronize => "Device::synchronize",
        OpKind::BeginCapture => "begin_capture",
        OpKind::EndCapture => "end_capture",
        OpKind::GraphLaunch => "Graph::launch",
        OpKind::HostWork => "host_work",
    }
}
