//! GPU timing: a pair of events around each timed operation, placed on the
//! CPU clock through anchor events.
//!
//! At open, [`Timing::new`] records a *base* event on an internal stream that
//! never runs anything else, and waits for it, noting the CPU clock before the
//! record and after the wait: the GPU stamped the event in between, and the
//! midpoint of the tightest of a few tries is taken as its CPU time.
//!
//! A timed operation gets a start and an end event from a pool (returned to
//! it once resolved), recorded just before and just after the operation on
//! its stream. [`Timing::resolve`] waits for the end event and places the
//! operation at `base CPU time + GPU time from the base to the start`,
//! lasting `elapsed(start, end)`.
//!
//! `cuEventElapsedTime` returns `f32` milliseconds, whose resolution shrinks
//! as the interval grows (about 0.06 µs at 1 s, 4 µs at a minute). So the
//! GPU time from the base is measured along a chain of *anchors*: about once
//! a second a new anchor event is recorded on the internal stream; once it has
//! completed, its distance from the previous anchor (about a second, measured
//! precisely) is added to that anchor's offset, kept as an `f64`, and it
//! becomes the anchor of the operations that follow. An anchor is only
//! adopted after it completed, so every operation timed against it starts
//! later on the GPU and the interval from the anchor is never negative.
//! Anchors need no CPU time of their own: only the base ties the GPU clock to
//! the CPU clock. Nothing here blocks except `new` (at open) and `resolve`.
//!
//! On the H200, spans landed within about 10–40 µs of the CPU time of the
//! submit on an idle stream, also after several anchors. Timing costs about
//! 4 µs of CPU per operation (two event records), and the two records also
//! take room in the stream's queue: 1000 timed launches behind a 100 ms
//! kernel filled it and blocked the CPU until the kernel ended, where 1000
//! untimed ones did not.

use super::clock::ns_since;
use super::drv;
use crate::error::Result;
use crate::trace::GpuSpan;
use cudarc::driver::{CudaContext, CudaEvent, CudaStream, sys::CUevent_flags};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

/// A new anchor is recorded once the current one is this old (CPU ns).
const ANCHOR_EVERY_NS: u64 = 1_000_000_000;

/// Tries at open to pin the base event on the CPU clock.
const BASE_TRIES: usize = 5;

/// A base good enough to stop trying: its CPU window is this narrow (ns).
const BASE_WINDOW_NS: u64 = 50_000;

/// A completed event whose GPU time from the base is known.
#[derive(Debug)]
struct Anchor {
    /// The event, recorded on the internal stream.
    event: CudaEvent,
    /// GPU milliseconds from the base event to this one.
    offset_ms: f64,
    /// CPU clock when it was recorded (only to decide when to record the next).
    recorded_ns: u64,
}

/// Events around one operation, the start one recorded.
#[derive(Debug)]
pub(super) struct Started {
    /// The anchor the start is measured from.
    anchor: Rc<Anchor>,
    /// Recorded before the operation.
    start: CudaEvent,
    /// To be recorded after it.
    end: CudaEvent,
}

/// The timing state of one device.
#[derive(Debug)]
pub(super) struct Timing {
    /// The device's CPU clock (`now_ns` counts from it).
    clock: Instant,
    /// The context, to create events.
    ctx: Arc<CudaContext>,
    /// The internal stream anchors are recorded on; nothing else runs there.
    stream: Arc<CudaStream>,
    /// CPU time of the base event, ns on `clock`.
    base_cpu_ns: u64,
    /// The newest completed anchor.
    anchor: Rc<Anchor>,
    /// An anchor recorded but not yet seen complete, with its CPU record time.
    candidate: Option<(CudaEvent, u64)>,
    /// Timing events ready for reuse.
    pool: Vec<CudaEvent>,
    /// Operations waiting for `resolve`, by token.
    pending: HashMap<u64, Started>,
    /// The next token.
    next_token: u64,
}

impl Timing {
    /// Creates the internal stream and records the base event. Waits for the
    /// base event (a few times, on an otherwise idle stream).
    pub(super) fn new(ctx: &Arc<CudaContext>, clock: Instant) -> Result<Self> {
        let stream = ctx.new_stream().map_err(drv("cuStreamCreate"))?;
        let mut best: Option<(u64, u64, CudaEvent)> = None;
        for _ in 0..BASE_TRIES {
            let event = new_event(ctx)?;
            let before = ns_since(clock);
            event.record(&stream).map_err(drv("cuEventRecord"))?;
            event.synchronize().map_err(drv("cuEventSynchronize"))?;
            let after = ns_since(clock);
            let window = after - before;
            if best.as_ref().is_none_or(|(w, _, _)| window < *w) {
                best = Some((window, before + window / 2, event));
            }
            if window <= BASE_WINDOW_NS {
                break;
            }
        }
        let (_, base_cpu_ns, event) = best.expect("BASE_TRIES is at least 1");
        let anchor = Rc::new(Anchor {
            event,
            offset_ms: 0.0,
            recorded_ns: base_cpu_ns,
        });
        Ok(Self {
            clock,
            ctx: Arc::clone(ctx),
            stream,
            base_cpu_ns,
            anchor,
            candidate: None,
            pool: Vec::new(),
            pending: HashMap::new(),
            next_token: 0,
        })
    }

    /// Records the start event on `stream`. `capturing`: some stream of this
    /// device is capturing, so the anchors are left alone (no query or record
    /// beside a capture).
    pub(super) fn start(&mut self, stream: &CudaStream, capturing: bool) -> Result<Started> {
        if !capturing {
            self.advance_anchor();
        }
        let start = self.take()?;
        let end = match self.take() {
            Ok(end) => end,
            Err(e) => {
                self.pool.push(start);
                return Err(e);
            }
        };
        let started = Started {
            anchor: Rc::clone(&self.anchor),
            start,
            end,
        };
        if let Err(e) = started.start.record(stream) {
            self.cancel(started);
            return Err(drv("cuEventRecord")(e));
        }
        Ok(started)
    }

    /// Records the end event on `stream` and returns the token to resolve.
    pub(super) fn finish(&mut self, started: Started, stream: &CudaStream) -> Result<u64> {
        if let Err(e) = started.end.record(stream) {
            self.cancel(started);
            return Err(drv("cuEventRecord")(e));
        }
        let token = self.next_token;
        self.next_token += 1;
        self.pending.insert(token, started);
        Ok(token)
    }

    /// Gives the events of an operation that was not submitted back to the pool.
    pub(super) fn cancel(&mut self, started: Started) {
        self.pool.push(started.start);
        self.pool.push(started.end);
    }

    /// When the operation of `token` ran, on the CPU clock. Waits for its end
    /// event. `None` for an unknown token or when the driver cannot tell.
    ///
    /// `capturing`: some stream of this device is capturing. Then nothing is
    /// asked of the driver (waiting for an event from the capturing thread
    /// invalidates a thread-local capture, as seen on the H200): the answer
    /// is `None` and the token stays pending, to be resolved after the capture.
    pub(super) fn resolve(&mut self, token: u64, capturing: bool) -> Option<GpuSpan> {
        if capturing {
            return None;
        }
        let started = self.pending.remove(&token)?;
        let span = self.span(&started);
        self.cancel(started);
        span
    }

    /// The span of a submitted operation.
    fn span(&self, started: &Started) -> Option<GpuSpan> {
        started.end.synchronize().ok()?;
        // Both intervals are between completed events: no further waiting.
        let from_anchor = started.anchor.event.elapsed_ms(&started.start).ok()?;
        let duration = started.start.elapsed_ms(&started.end).ok()?;
        let from_base_ms = started.anchor.offset_ms + f64::from(from_anchor.max(0.0));
        let start = self.base_cpu_ns as f64 + from_base_ms * 1e6;
        let end = start + f64::from(duration.max(0.0)) * 1e6;
        Some(GpuSpan {
            start_ns: start.max(0.0).round() as u64,
            end_ns: end.max(0.0).round() as u64,
        })
    }

    /// Adopts a completed candidate anchor, or records a new one when the
    /// current anchor is old. Never blocks; errors only delay the next anchor.
    fn advance_anchor(&mut self) {
        if let Some((event, recorded_ns)) = self.candidate.take() {
            match event.try_is_complete() {
                Ok(true) => {
                    // Both events have completed, so this does not wait.
                    if let Ok(ms) = self.anchor.event.elapsed_ms(&event) {
                        self.anchor = Rc::new(Anchor {
                            event,
                            offset_ms: self.anchor.offset_ms + f64::from(ms.max(0.0)),
                            recorded_ns,
                        });
                    }
                }
                Ok(false) => self.candidate = Some((event, recorded_ns)),
                Err(_) => {}
            }
            return;
        }
        let now = ns_since(self.clock);
        if now.saturating_sub(self.anchor.recorded_ns) < ANCHOR_EVERY_NS {
            return;
        }
        if let Ok(event) = new_event(&self.ctx)
            && event.record(&self.stream).is_ok()
        {
            self.candidate = Some((event, now));
        }
    }

    /// A timing event from the pool, or a new one.
    fn take(&mut self) -> Result<CudaEvent> {
        match self.pool.pop() {
            Some(event) => Ok(event),
            None => new_event(&self.ctx),
        }
    }
}

/// A new event with timing enabled (`CU_EVENT_DEFAULT`).
pub(super) fn new_event(ctx: &Arc<CudaContext>) -> Result<CudaEvent> {
    ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(drv("cuEventCreate"))
}
