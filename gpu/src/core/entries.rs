//! The trace as the core keeps it: one compact entry per call, whose GPU
//! span may still be pending, turned into [`TraceEntry`]s only when the
//! trace is read. An entry holds its name as the call gave it (a
//! [`Label`]), so appending one allocates nothing but the list's growth.

use super::Op;
use crate::exec::{DeviceInfo, Exec, Span};
use crate::label::Label;
use crate::trace::{BlockReason, CallSite, OpKind, StreamId, Trace, TraceEntry};

/// One call, as [`TraceEntry`] will show it.
struct Entry {
    op: OpKind,
    name: Label,
    stream: Option<StreamId>,
    bytes: u64,
    site: CallSite,
    cpu_start_ns: u64,
    cpu_end_ns: u64,
    blocking: Option<BlockReason>,
    /// Known, pending (a token for [`Exec::resolve`]) or none.
    span: Span,
    captured: bool,
}

/// The trace of one device so far.
#[derive(Default)]
pub(super) struct Entries(Vec<Entry>);

impl Entries {
    /// Appends the entry of `op`, which ran from `start` to `end` on the CPU clock.
    #[inline]
    pub(super) fn push(&mut self, op: &Op, start: u64, end: u64, span: Span, captured: bool) {
        self.0.push(Entry {
            op: op.kind,
            name: op.name.clone(),
            stream: op.stream,
            bytes: op.bytes,
            site: op.site,
            cpu_start_ns: start,
            cpu_end_ns: end,
            blocking: op.blocking,
            span,
            captured,
        });
    }

    /// Appends the entry of a launch of the kernel `name` on `stream` outside
    /// a capture, the entry [`Entries::push`] makes of its `Op`.
    #[inline]
    pub(super) fn push_launch(
        &mut self,
        name: &'static str,
        stream: StreamId,
        bytes: u64,
        site: CallSite,
        (start, end): (u64, u64),
        span: Span,
    ) {
        self.0.push(Entry {
            op: OpKind::Launch,
            name: Label::Static(name),
            stream: Some(stream),
            bytes,
            site,
            cpu_start_ns: start,
            cpu_end_ns: end,
            blocking: None,
            span,
            captured: false,
        });
    }

    /// The trace so far, with pending GPU spans resolved (may wait on the CUDA backend).
    pub(super) fn trace(
        &mut self,
        exec: &mut dyn Exec,
        info: &DeviceInfo,
        streams: &[StreamId],
    ) -> Trace {
        for e in &mut self.0 {
            if let Span::Pending(token) = e.span
                && let Some(span) = exec.resolve(token)
            {
                e.span = Span::Known(span);
            }
        }
        let entries = self.0.iter().enumerate();
        Trace {
            backend: info.backend,
            device: info.name.clone(),
            streams: streams.to_vec(),
            entries: entries.map(|(seq, e)| e.to_trace(seq as u64)).collect(),
            ranges: Vec::new(),
        }
    }

    /// Number of entries so far: the `seq` the next call will get.
    pub(super) fn len(&self) -> u64 {
        self.0.len() as u64
    }

    /// Drops the trace so far (sequence numbers start again at 0).
    pub(super) fn clear(&mut self) {
        self.0.clear();
    }
}

impl Entry {
    /// The entry as the trace shows it, at position `seq`.
    fn to_trace(&self, seq: u64) -> TraceEntry {
        TraceEntry {
            seq,
            op: self.op,
            name: self.name.to_string(),
            stream: self.stream,
            bytes: self.bytes,
            site: self.site,
            cpu_start_ns: self.cpu_start_ns,
            cpu_end_ns: self.cpu_end_ns,
            blocking: self.blocking,
            gpu: match self.span {
                Span::Known(s) => Some(s),
                _ => None,
            },
            captured: self.captured,
        }
    }
}
