//! The trace as the core keeps it: entries whose GPU spans may still be pending.

use super::Op;
use crate::exec::{DeviceInfo, Exec, Span};
use crate::trace::{StreamId, Trace, TraceEntry};

/// A trace entry whose GPU span may still be pending.
struct Entry {
    entry: TraceEntry,
    span: Span,
}

/// The trace of one device so far.
#[derive(Default)]
pub(super) struct Entries(Vec<Entry>);

impl Entries {
    /// Appends the entry of `op`, which ran from `start` to `end` on the CPU clock.
    pub(super) fn push(&mut self, op: Op, start: u64, end: u64, span: Span, captured: bool) {
        let entry = TraceEntry {
            seq: self.len(),
            op: op.kind,
            name: op.name,
            stream: op.stream,
            bytes: op.bytes,
            site: op.site,
            cpu_start_ns: start,
            cpu_end_ns: end,
            blocking: op.blocking,
            gpu: match span {
                Span::Known(s) => Some(s),
                _ => None,
            },
            captured,
        };
        self.0.push(Entry { entry, span });
    }

    /// The trace so far, with pending GPU spans resolved (may wait on the CUDA backend).
    pub(super) fn trace(
        &mut self,
        exec: &mut dyn Exec,
        info: &DeviceInfo,
        streams: &[StreamId],
    ) -> Trace {
        for e in &mut self.0 {
            if let (Span::Pending(token), None) = (e.span, e.entry.gpu) {
                e.entry.gpu = exec.resolve(token);
            }
        }
        Trace {
            backend: info.backend,
            device: info.name.clone(),
            streams: streams.to_vec(),
            entries: self.0.iter().map(|e| e.entry.clone()).collect(),
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
