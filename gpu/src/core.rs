//! The front end's state and its one choke point.
//!
//! Every public call becomes an [`Op`] and goes through [`Core::run`]: it
//! checks the capture rules and sync debug mode for calls that can block,
//! times the call on the backend's CPU clock, and appends the trace entry.
//! Views are checked against the live allocations here, and the race checker
//! is fed here, so both backends get exactly the same checks.

use crate::calibration::Calibration;
use crate::error::{GpuError, Result};
use crate::exec::{DeviceInfo, Exec, Span};
use crate::race::{RaceChecker, Range};
use crate::trace::{BlockReason, CallSite, OpKind, StreamId, Trace, TraceEntry};
use std::collections::BTreeMap;

/// What sync debug mode does with a call that can block the CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SyncDebug {
    /// Nothing (the calls still appear as blocking in the trace).
    #[default]
    Off,
    /// Print a warning naming the call and its site to stderr, then proceed.
    Warn,
    /// Refuse the call with [`GpuError::SyncDisallowed`].
    Error,
}

/// One call, as the choke point sees it.
pub(crate) struct Op {
    pub(crate) kind: OpKind,
    pub(crate) name: String,
    pub(crate) stream: Option<StreamId>,
    pub(crate) bytes: u64,
    pub(crate) site: CallSite,
    pub(crate) blocking: Option<BlockReason>,
}

impl Op {
    pub(crate) fn new(kind: OpKind, name: impl Into<String>, site: CallSite) -> Self {
        Self {
            kind,
            name: name.into(),
            stream: None,
            bytes: 0,
            site,
            blocking: None,
        }
    }

    pub(crate) fn on(mut self, stream: StreamId) -> Self {
        self.stream = Some(stream);
        self
    }

    pub(crate) fn bytes(mut self, bytes: u64) -> Self {
        self.bytes = bytes;
        self
    }

    pub(crate) fn blocking(mut self, reason: BlockReason) -> Self {
        self.blocking = Some(reason);
        self
    }
}

/// A capture in progress.
pub(crate) struct Capture {
    pub(crate) stream: StreamId,
    /// The call that invalidated the capture, if one did.
    pub(crate) invalidated: Option<(&'static str, CallSite)>,
    /// What the captured work reads and writes, node by node.
    pub(crate) nodes: Vec<crate::graph::NodeAccess>,
}

/// The kind of a live device allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AllocKind {
    Buffer,
    Segment,
}

/// A trace entry whose GPU span may still be pending.
struct Entry {
    entry: TraceEntry,
    span: Span,
}

/// The front end's state for one device.
pub(crate) struct Core {
    pub(crate) exec: Box<dyn Exec>,
    pub(crate) info: DeviceInfo,
    pub(crate) calibration: Calibration,
    pub(crate) race: RaceChecker,
    pub(crate) sync_debug: SyncDebug,
    pub(crate) capture: Option<Capture>,
    pub(crate) streams: Vec<StreamId>,
    allocations: BTreeMap<u64, (u64, AllocKind)>,
    entries: Vec<Entry>,
}

impl Core {
    pub(crate) fn new(
        exec: Box<dyn Exec>,
        calibration: Calibration,
        sync_debug: SyncDebug,
    ) -> Self {
        Self {
            info: exec.info(),
            exec,
            calibration,
            race: RaceChecker::default(),
            sync_debug,
            capture: None,
            streams: Vec::new(),
            allocations: BTreeMap::new(),
            entries: Vec::new(),
        }
    }

    /// The choke point: checks, runs `work` on the backend, traces the call.
    pub(crate) fn run<R>(
        &mut self,
        op: Op,
        work: impl FnOnce(&mut dyn Exec) -> Result<(R, Span)>,
    ) -> Result<R> {
        if let Some(reason) = op.blocking {
            self.refuse_in_capture(&op, "it would make the CPU wait for the GPU")?;
            self.check_sync_debug(&op, reason)?;
        }
        let start = self.exec.now_ns();
        let (value, span) = work(self.exec.as_mut())?;
        let end = self.exec.now_ns();
        self.push(op, start, end, span);
        Ok(value)
    }

    /// A blocking call that must happen (a free in `Drop`): instead of being
    /// refused, it invalidates a capture in progress and, in sync debug
    /// mode, is reported as a warning; then it runs and is traced.
    pub(crate) fn call_forced<R>(
        &mut self,
        op: Op,
        work: impl FnOnce(&mut dyn Exec) -> Result<R>,
    ) -> Result<R> {
        if op.blocking.is_some() {
            let _ = self.refuse_in_capture(&op, "it would make the CPU wait for the GPU");
            if self.sync_debug != SyncDebug::Off {
                eprintln!(
                    "gpu: sync debug: `{}` at {} blocks the CPU (a drop cannot be refused)",
                    op.name, op.site
                );
            }
        }
        let start = self.exec.now_ns();
        let value = work(self.exec.as_mut())?;
        let end = self.exec.now_ns();
        self.push(op, start, end, Span::None);
        Ok(value)
    }

    /// Like [`Core::run`] for calls with no GPU span.
    pub(crate) fn call<R>(
        &mut self,
        op: Op,
        work: impl FnOnce(&mut dyn Exec) -> Result<R>,
    ) -> Result<R> {
        self.run(op, |exec| Ok((work(exec)?, Span::None)))
    }

    fn push(&mut self, op: Op, start: u64, end: u64, span: Span) {
        let captured = match (&self.capture, op.stream) {
            (Some(c), Some(s)) => c.stream == s && matches!(op.kind, k if capturable(k)),
            _ => false,
        };
        let entry = TraceEntry {
            seq: self.entries.len() as u64,
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
        self.entries.push(Entry { entry, span });
    }

    /// If a capture is in progress, invalidates it and returns the error for `op`.
    pub(crate) fn refuse_in_capture(&mut self, op: &Op, why: &'static str) -> Result<()> {
        let Some(capture) = &mut self.capture else {
            return Ok(());
        };
        let stream = capture.stream;
        let name = static_name(op.kind);
        if capture.invalidated.is_none() {
            capture.invalidated = Some((name, op.site));
            self.exec.abort_capture(stream);
        }
        Err(GpuError::IllegalInCapture {
            op: name,
            stream: stream.0,
            why,
            site: op.site,
        })
    }

    /// Refuses work on a stream whose capture was invalidated (CUDA does too).
    pub(crate) fn check_not_invalidated(&self, stream: StreamId) -> Result<()> {
        match &self.capture {
            Some(Capture {
                stream: s,
                invalidated: Some((first, site)),
                ..
            }) if *s == stream => Err(GpuError::CaptureInvalidated {
                stream: s.0,
                op: first,
                site: *site,
            }),
            _ => Ok(()),
        }
    }

    fn check_sync_debug(&self, op: &Op, reason: BlockReason) -> Result<()> {
        match self.sync_debug {
            SyncDebug::Off => Ok(()),
            SyncDebug::Warn => {
                eprintln!(
                    "gpu: sync debug: `{}` at {} blocks the CPU: {reason}",
                    op.name, op.site
                );
                Ok(())
            }
            SyncDebug::Error => Err(GpuError::SyncDisallowed {
                op: static_name(op.kind),
                reason: reason.explain().to_string(),
                site: op.site,
            }),
        }
    }

    /// Registers a live device allocation.
    pub(crate) fn add_allocation(&mut self, addr: u64, bytes: u64, kind: AllocKind) {
        self.allocations.insert(addr, (bytes, kind));
    }

    /// Forgets a device allocation.
    pub(crate) fn remove_allocation(&mut self, addr: u64) {
        self.allocations.remove(&addr);
    }

    /// Checks that `[addr, addr + bytes)` lies inside one live allocation.
    pub(crate) fn check_range(
        &self,
        op: &'static str,
        addr: u64,
        bytes: u64,
        site: CallSite,
    ) -> Result<()> {
        let inside =
            self.allocations
                .range(..=addr)
                .next_back()
                .is_some_and(|(&base, &(len, _))| {
                    addr.checked_add(bytes).is_some_and(|end| end <= base + len)
                });
        if inside {
            Ok(())
        } else {
            Err(GpuError::InvalidView {
                op,
                addr,
                bytes,
                site,
            })
        }
    }

    /// Feeds an operation on a stream to the race checker, unless it is being captured.
    pub(crate) fn race_stream_op(
        &mut self,
        stream: StreamId,
        ranges: &[Range],
        what: &str,
        site: CallSite,
    ) {
        match &mut self.capture {
            Some(c) if c.stream == stream => c.nodes.push(crate::graph::NodeAccess {
                ranges: ranges.to_vec(),
                what: what.to_string(),
            }),
            _ => self.race.on_stream_op(stream, ranges, what, site),
        }
    }

    /// The trace so far, with pending GPU spans resolved (may wait on the CUDA backend).
    pub(crate) fn trace(&mut self) -> Trace {
        for e in &mut self.entries {
            if let (Span::Pending(token), None) = (e.span, e.entry.gpu) {
                e.entry.gpu = self.exec.resolve(token);
            }
        }
        Trace {
            backend: self.info.backend,
            device: self.info.name.clone(),
            streams: self.streams.clone(),
            entries: self.entries.iter().map(|e| e.entry.clone()).collect(),
        }
    }

    /// Number of entries so far: the `seq` the next call will get.
    pub(crate) fn trace_len(&self) -> u64 {
        self.entries.len() as u64
    }

    /// Drops the trace so far (sequence numbers start again at 0).
    pub(crate) fn clear_trace(&mut self) {
        self.entries.clear();
    }
}

/// Calls that a capture records instead of running.
pub(crate) fn capturable(kind: OpKind) -> bool {
    matches!(
        kind,
        OpKind::Launch
            | OpKind::Memset
            | OpKind::CopyHostToDevice
            | OpKind::CopyDeviceToHost
            | OpKind::CopyDeviceToDevice
    )
}

/// The name of a call, as errors show it.
pub(crate) fn static_name(kind: OpKind) -> &'static str {
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

#[cfg(test)]
mod tests;
