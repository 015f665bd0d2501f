//! The capture in progress, and how the choke point enforces the capture
//! rule of each call ([`super::Op::capture_rule`]): the state errors that
//! leave a capture alone, and the refusals that invalidate it.
//!
//! A capture can fork, as CUDA's does: an event recorded on a stream of the
//! capture, waited for by another stream, brings that stream into the
//! capture, and its work becomes a branch of the graph that runs beside the
//! origin's. Every stream that joined must be joined back (the origin waits
//! for an event recorded on it after its last work) before the capture
//! ends, or `end_capture` fails, as CUDA's does with
//! `CUDA_ERROR_STREAM_CAPTURE_UNJOINED`. [`Joins`] keeps what each stream of
//! the capture is ordered after; a race checker of its own checks the
//! branches against one another.

use super::op::BLOCKS;
use super::{CaptureRule, Core, Mode, NodeAccess, Op, Race, on_stream};
use crate::error::{GpuError, Result};
use crate::exec::EventId;
use crate::race::RaceChecker;
use crate::trace::{CallSite, StreamId};
use std::collections::BTreeMap;

/// Why a stream of the capture may not wait for an event recorded outside it.
const ISOLATION: &str = "a stream of the capture waits only for events recorded inside the same capture: wait for this one before `begin_capture`";

/// A capture in progress.
pub(super) struct Capture {
    /// The stream that began it (the origin), where it ends.
    pub(super) stream: StreamId,
    /// The call that invalidated the capture, if one did.
    pub(super) invalidated: Option<(&'static str, CallSite)>,
    /// What the captured work reads and writes, node by node.
    pub(super) nodes: Vec<NodeAccess>,
    /// The streams in the capture and what orders them.
    joins: Joins,
    /// The graph's own race checker: the branches of a fork against one another.
    pub(super) race: RaceChecker,
}

impl Capture {
    /// A capture of `stream` that has recorded nothing yet.
    pub(super) fn new(stream: StreamId) -> Self {
        Self {
            stream,
            invalidated: None,
            nodes: Vec::new(),
            joins: Joins::new(stream),
            race: RaceChecker::default(),
        }
    }

    /// Whether `stream` is in the capture: its origin, or a stream that joined it.
    pub(super) fn has(&self, stream: StreamId) -> bool {
        self.joins.known.contains_key(&stream)
    }
}

/// What orders the streams of a capture: a vector clock per stream, over
/// the captured operations of each.
#[derive(Debug)]
struct Joins {
    /// Per stream of the capture, what it is ordered after: the number of
    /// operations of each stream (its own included) that come before its next one.
    known: BTreeMap<StreamId, BTreeMap<StreamId, u64>>,
    /// Per event recorded inside the capture, what it carries.
    events: BTreeMap<EventId, BTreeMap<StreamId, u64>>,
    /// Where each stream other than the origin joined.
    joined_at: BTreeMap<StreamId, CallSite>,
}

impl Joins {
    fn new(origin: StreamId) -> Self {
        Self {
            known: BTreeMap::from([(origin, BTreeMap::from([(origin, 0)]))]),
            events: BTreeMap::new(),
            joined_at: BTreeMap::new(),
        }
    }

    /// One more operation on `stream`, a stream of the capture.
    fn work(&mut self, stream: StreamId) {
        let known = self
            .known
            .get_mut(&stream)
            .expect("a stream of the capture");
        *known.entry(stream).or_default() += 1;
    }

    /// `event` recorded on `stream`, a stream of the capture.
    fn record(&mut self, event: EventId, stream: StreamId) {
        let known = self.known[&stream].clone();
        self.events.insert(event, known);
    }

    /// `stream` waits for `event`, recorded inside the capture: it joins the
    /// capture if it was not in it yet.
    fn wait(&mut self, stream: StreamId, event: EventId, site: CallSite) {
        let carried = self.events[&event].clone();
        if !self.known.contains_key(&stream) {
            self.joined_at.insert(stream, site);
            self.known.insert(stream, BTreeMap::from([(stream, 1)]));
        }
        let known = self.known.get_mut(&stream).expect("joined above");
        for (member, count) in carried {
            let entry = known.entry(member).or_default();
            *entry = (*entry).max(count);
        }
    }

    /// The first stream that joined and whose last operation the origin is
    /// not ordered after, with where it joined.
    fn unjoined(&self, origin: StreamId) -> Option<(StreamId, CallSite)> {
        let origin_knows = &self.known[&origin];
        self.joined_at.iter().find_map(|(&stream, &site)| {
            let done = self.known[&stream][&stream];
            let seen = origin_knows.get(&stream).copied().unwrap_or(0);
            (seen < done).then_some((stream, site))
        })
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
    ) -> Result<Option<Box<Capture>>> {
        match (rule, &self.capture) {
            (CaptureRule::Work | CaptureRule::BlockingWork | CaptureRule::Edge, _) => {
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
            Some(c) if c.has(stream) => match c.invalidated {
                Some((first, site)) => Err(GpuError::CaptureInvalidated {
                    stream: c.stream.0,
                    op: first,
                    site,
                }),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// Takes the capture that `op` ends off the core: an error where its
    /// stream is not capturing, where an illegal call invalidated it, and
    /// where a stream that joined it was not joined back (the capture ends
    /// then too, as CUDA's does).
    fn take_capture(&mut self, op: &Op) -> Result<Box<Capture>> {
        let stream = on_stream(op);
        let capture = match self.capture.take() {
            Some(c) if c.stream == stream => c,
            other => {
                let detail = match &other {
                    Some(c) if c.has(stream) => format!(
                        "stream {stream} joined the capture of stream {}; end the capture there",
                        c.stream
                    ),
                    _ => format!("stream {stream} is not capturing; call `begin_capture` first"),
                };
                self.capture = other;
                return Err(GpuError::CaptureState {
                    op: op.static_name(),
                    detail,
                    site: op.site,
                });
            }
        };
        if let Some((first, at)) = capture.invalidated {
            return Err(GpuError::CaptureInvalidated {
                stream: stream.0,
                op: first,
                site: at,
            });
        }
        if let Some((joined, joined_at)) = capture.joins.unjoined(stream) {
            self.exec.abort_capture(stream);
            return Err(GpuError::CaptureUnjoined {
                stream: stream.0,
                joined: joined.0,
                joined_at,
                site: op.site,
            });
        }
        Ok(capture)
    }

    /// Whether `op` is made on a stream of the capture in progress.
    pub(super) fn on_capturing_stream(&self, op: &Op) -> bool {
        match (&self.capture, op.stream) {
            (Some(c), Some(stream)) => c.has(stream),
            _ => false,
        }
    }

    /// Whether `op` makes a stream of the capture wait for an event recorded
    /// outside it.
    fn waits_outside_capture(&self, op: &Op) -> bool {
        let Some(capture) = &self.capture else {
            return false;
        };
        op.race.iter().any(|effect| match effect {
            Race::Wait(event) => {
                self.on_capturing_stream(op) && !capture.joins.events.contains_key(event)
            }
            _ => false,
        })
    }

    /// Follows what a call that ran did to the capture in progress: work on
    /// a stream of it, an event recorded there, a stream waiting for one
    /// (and so joining it).
    pub(super) fn follow_capture(&mut self, op: &Op) {
        let (Some(capture), Some(stream)) = (&mut self.capture, op.stream) else {
            return;
        };
        if op.capture_rule().records() && capture.has(stream) {
            capture.joins.work(stream);
        }
        for effect in op.race.iter() {
            match effect {
                Race::Record(event) if capture.has(stream) => {
                    capture.joins.record(*event, stream);
                }
                // Recorded again outside the capture, it is an eager event now.
                Race::Record(event) => {
                    capture.joins.events.remove(event);
                }
                Race::Wait(event) if capture.joins.events.contains_key(event) => {
                    capture.joins.wait(stream, *event, op.site);
                }
                _ => {}
            }
        }
    }

    /// Whether a record or a wait of `event` on `stream` is an edge of the
    /// capture's graph (to be checked by the capture's own race checker)
    /// rather than an eager one.
    pub(super) fn captured_edge(&self, stream: StreamId, event: EventId) -> bool {
        self.capture
            .as_ref()
            .is_some_and(|c| c.has(stream) && c.joins.events.contains_key(&event))
    }

    /// Refuses a call that the capture in progress does not allow, and
    /// invalidates the capture; a forced call is refused in name only.
    pub(super) fn refuse_illegal(&mut self, op: &Op, rule: CaptureRule, mode: Mode) -> Result<()> {
        let why = match rule {
            CaptureRule::Illegal(why) => why,
            CaptureRule::BlockingWork => BLOCKS,
            CaptureRule::IllegalOnCapturingStream(why) if self.on_capturing_stream(op) => why,
            CaptureRule::Edge if self.waits_outside_capture(op) => ISOLATION,
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
