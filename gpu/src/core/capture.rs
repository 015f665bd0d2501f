//! The capture in progress, and how the choke point enforces the capture
//! rule of each call ([`super::Op::capture_rule`]): the state errors that
//! leave a capture alone, and the refusals that invalidate it.

use super::op::BLOCKS;
use super::{CaptureRule, Core, Mode, NodeAccess, Op, on_stream};
use crate::error::{GpuError, Result};
use crate::trace::{CallSite, StreamId};

/// A capture in progress.
pub(super) struct Capture {
    pub(super) stream: StreamId,
    /// The call that invalidated the capture, if one did.
    pub(super) invalidated: Option<(&'static str, CallSite)>,
    /// What the captured work reads and writes, node by node.
    pub(super) nodes: Vec<NodeAccess>,
}

impl Capture {
    /// A capture of `stream` that has recorded nothing yet.
    pub(super) fn new(stream: StreamId) -> Self {
        Self {
            stream,
            invalidated: None,
            nodes: Vec::new(),
        }
    }
}

impl Core {
    /// The errors that depend on the capture's state rather than on the call
    /// being legal in it; they leave the capture alone (but an ended capture
    /// is taken off, invalidated or not).
    pub(super) fn check_capture_state(
        &mut self,
        op: &Op,
        rule: CaptureRule,
    ) -> Result<Option<Capture>> {
        match (rule, &self.capture) {
            (CaptureRule::Work | CaptureRule::BlockingWork, _) => {
                self.check_not_invalidated(on_stream(op))?;
            }
            (CaptureRule::OutsideCapture(detail), Some(capture)) => {
                return Err(GpuError::CaptureState {
                    op: op.static_name(),
                    detail: detail(capture.stream),
                    site: op.site,
                });
            }
            (CaptureRule::EndsCapture, _) => return self.take_capture(op).map(Some),
            _ => {}
        }
        Ok(None)
    }

    /// Refuses work on a stream whose capture was invalidated (CUDA does too).
    fn check_not_invalidated(&self, stream: StreamId) -> Result<()> {
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

    /// Takes the capture that `op` ends off the core: an error where its
    /// stream is not capturing, or where an illegal call invalidated it.
    fn take_capture(&mut self, op: &Op) -> Result<Capture> {
        let stream = on_stream(op);
        let capture = match self.capture.take() {
            Some(c) if c.stream == stream => c,
            other => {
                self.capture = other;
                return Err(GpuError::CaptureState {
                    op: op.static_name(),
                    detail: format!("stream {stream} is not capturing; call `begin_capture` first"),
                    site: op.site,
                });
            }
        };
        match capture.invalidated {
            Some((first, at)) => Err(GpuError::CaptureInvalidated {
                stream: stream.0,
                op: first,
                site: at,
            }),
            None => Ok(capture),
        }
    }

    /// Refuses a call that the capture in progress does not allow, and
    /// invalidates the capture; a forced call is refused in name only.
    pub(super) fn refuse_illegal(&mut self, op: &Op, rule: CaptureRule, mode: Mode) -> Result<()> {
        let why = match rule {
            CaptureRule::Illegal(why) => why,
            CaptureRule::BlockingWork => BLOCKS,
            CaptureRule::IllegalOnCapturingStream(why) if self.on_capturing_stream(op) => why,
            _ => return Ok(()),
        };
        let refused = self.refuse_in_capture(op, why);
        match mode {
            Mode::Refusable => refused,
            Mode::Forced => Ok(()),
        }
    }

    /// If a capture is in progress, invalidates it and returns the error for `op`.
    fn refuse_in_capture(&mut self, op: &Op, why: &'static str) -> Result<()> {
        let Some(capture) = &mut self.capture else {
            return Ok(());
        };
        let stream = capture.stream;
        let name = op.static_name();
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
}
