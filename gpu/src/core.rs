//! The front end's state and its one choke point.
//!
//! Every public call becomes an [`Op`] and goes through [`Core::run`] (or
//! one of its variants: [`Core::call`], [`Core::call_forced`],
//! [`Core::query`], [`Core::begin_capture`], [`Core::end_capture`]), which
//! all pass through one function, `execute`. It admits the call (`admit`:
//! the capture rule of [`Op::capture_rule`], the views of its GPU work
//! against the live allocations, sync debug mode for calls that can block),
//! times it on the backend's CPU clock, appends the trace entry, and applies
//! its [`Race`] effects (`apply_race`, the one place that updates the race
//! checker). So both backends get exactly the same checks, and what a
//! capture allows is one `match`. One shape of call takes those steps
//! without building its `Op`: a kernel launch outside a capture, most of a
//! program's calls (`launch.rs`, checked against the whole admission in
//! debug builds). (Just over 400 lines with the hook of its tests: the
//! choke point stays in one file.)

mod allocations;
mod capture;
mod entries;
mod launch;
mod op;

pub(crate) use allocations::{AllocKind, Allocations};
pub(crate) use op::{CaptureRule, NodeAccess, Op, Race};

use crate::calibration::Calibration;
use crate::error::{GpuError, Result};
use crate::exec::{DeviceInfo, Exec, GraphId, Span};
use crate::race::{HOST_BASE, RaceChecker, RaceReport};
use crate::trace::{CallSite, OpKind, StreamId, Trace};
use capture::Capture;
use entries::Entries;

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

/// Whether a refusal stops a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// A refused call fails with its error: every call but the ones below.
    Refusable,
    /// The call must happen (a free in `Drop`): a refusal invalidates a
    /// capture in progress and sync debug mode warns, then the call runs.
    Forced,
}

/// Which of the front end's records a device keeps (see
/// [`crate::DeviceOptions::trace`] and [`crate::DeviceOptions::race_check`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Checks {
    /// Append a trace entry for every call.
    pub(crate) trace: bool,
    /// Feed every call's race effects to the race checker.
    pub(crate) races: bool,
}

/// The front end's state for one device.
pub(crate) struct Core {
    pub(crate) exec: Box<dyn Exec>,
    pub(crate) info: DeviceInfo,
    pub(crate) calibration: Calibration,
    pub(crate) sync_debug: SyncDebug,
    pub(crate) streams: Vec<StreamId>,
    pub(crate) allocations: Allocations,
    race: RaceChecker,
    /// Boxed: a call moves the capture it ends, and every call returns that
    /// `Option` from admission; a pointer keeps both moves small.
    capture: Option<Box<Capture>>,
    entries: Entries,
    /// The ranges opened so far (`Device::range`), apart from the calls'
    /// entries: a call never touches them.
    pub(crate) ranges: crate::profile::Ranges,
    checks: Checks,
}

impl Core {
    pub(crate) fn new(
        exec: Box<dyn Exec>,
        calibration: Calibration,
        sync_debug: SyncDebug,
        checks: Checks,
    ) -> Self {
        Self {
            info: exec.info(),
            exec,
            calibration,
            race: RaceChecker::default(),
            sync_debug,
            capture: None,
            streams: Vec::new(),
            allocations: Allocations::default(),
            entries: Entries::default(),
            ranges: crate::profile::Ranges::default(),
            checks,
        }
    }

    /// The choke point: admits `op`, runs `work` on the backend, traces the
    /// call and applies its race effects.
    #[inline]
    pub(crate) fn run<R>(
        &mut self,
        op: &Op,
        work: impl FnOnce(&mut dyn Exec) -> Result<(R, Span)>,
    ) -> Result<R> {
        self.execute(op, Mode::Refusable, |exec, _| work(exec), |_| true)
    }

    /// Like [`Core::run`] for calls with no GPU span.
    #[inline]
    pub(crate) fn call<R>(
        &mut self,
        op: &Op,
        work: impl FnOnce(&mut dyn Exec) -> Result<R>,
    ) -> Result<R> {
        self.run(op, |exec| Ok((work(exec)?, Span::None)))
    }

    /// A call that must happen (a free in `Drop`): instead of being refused,
    /// it invalidates a capture in progress and, if it can block, is reported
    /// by sync debug mode as a warning; then it runs and is traced.
    pub(crate) fn call_forced<R>(
        &mut self,
        op: &Op,
        work: impl FnOnce(&mut dyn Exec) -> Result<R>,
    ) -> Result<R> {
        let work = |exec: &mut dyn Exec, _| Ok((work(exec)?, Span::None));
        self.execute(op, Mode::Forced, work, |_| true)
    }

    /// Like [`Core::call`] for a query: its race effects (the CPU knows the
    /// work is done) hold only when the answer is yes.
    pub(crate) fn query(
        &mut self,
        op: &Op,
        work: impl FnOnce(&mut dyn Exec) -> Result<bool>,
    ) -> Result<bool> {
        let work = |exec: &mut dyn Exec, _| Ok((work(exec)?, Span::None));
        self.execute(op, Mode::Refusable, work, |done| *done)
    }

    /// Begins capturing `op`'s stream once the backend has.
    pub(crate) fn begin_capture(&mut self, op: &Op) -> Result<()> {
        let stream = on_stream(op);
        self.call(op, |exec| exec.begin_capture(stream))?;
        self.capture = Some(Box::new(Capture::new(stream)));
        Ok(())
    }

    /// Ends the capture of `op`'s stream: the graph, and what its nodes touch.
    pub(crate) fn end_capture(&mut self, op: &Op) -> Result<(GraphId, Vec<NodeAccess>)> {
        let stream = on_stream(op);
        let work = |exec: &mut dyn Exec, ended: Option<Box<Capture>>| {
            let graph = exec.end_capture(stream)?;
            Ok(((graph, ended), Span::None))
        };
        let (graph, ended) = self.execute(op, Mode::Refusable, work, |_| true)?;
        let Some(mut capture) = ended else {
            return Ok((graph, Vec::new()));
        };
        // Races between the branches of a fork, found as they were captured.
        self.race.adopt(capture.race.take_reports());
        Ok((graph, capture.nodes))
    }

    /// Whether `stream` is in the capture now: the stream that began it, or
    /// one that joined it by waiting for an event recorded inside it.
    pub(crate) fn in_capture(&self, stream: StreamId) -> bool {
        self.capture.as_ref().is_some_and(|c| c.has(stream))
    }

    /// Every race found so far.
    pub(crate) fn races(&self) -> &[RaceReport] {
        self.race.reports()
    }

    /// Removes and returns the races found so far.
    pub(crate) fn take_races(&mut self) -> Vec<RaceReport> {
        self.race.take_reports()
    }

    /// What every call goes through: admission, the work (given the capture
    /// the call ends, if it ends one), the trace entry, and the race effects,
    /// which apply when the call succeeds and `holds` says so.
    ///
    /// Every entry point takes the call by reference: an `Op` is a few
    /// hundred bytes (its race effects are inline), and passing it by value
    /// copied all of it at each step (on a launch, three copies of it and
    /// two of the boxed capture's old inline form: a third of the front
    /// end's instructions, counted with callgrind on the virtual GPU).
    fn execute<R>(
        &mut self,
        op: &Op,
        mode: Mode,
        work: impl FnOnce(&mut dyn Exec, Option<Box<Capture>>) -> Result<(R, Span)>,
        holds: impl FnOnce(&R) -> bool,
    ) -> Result<R> {
        let ended = self.admit(op, mode)?;
        // The CPU clock is read for the trace alone (twice a call).
        let trace = self.checks.trace;
        let start = if trace { self.exec.now_ns() } else { 0 };
        let (value, span) = work(self.exec.as_mut(), ended)?;
        if trace {
            let end = self.exec.now_ns();
            self.push(op, start, end, span);
        }
        if holds(&value) {
            if self.capture.is_some() {
                self.follow_capture(op);
            }
            self.apply_race(op);
        }
        Ok(value)
    }

    /// Whether `op` may run now, in this order: the state of the capture
    /// (invalidated, or in progress where it must not be), the views of its
    /// GPU work, the capture's refusal of illegal calls, sync debug mode.
    /// Returns the capture that `op` ends, if it ends one.
    ///
    /// With no capture in progress, a call that cannot block and does not end
    /// a capture can be refused by its views alone: every capture rule lets
    /// it through and sync debug mode has nothing to say. That is most calls
    /// (every launch outside a capture), so they check only their views; in
    /// debug builds (every test) the whole admission runs as well, and must
    /// agree.
    #[inline]
    fn admit(&mut self, op: &Op, mode: Mode) -> Result<Option<Box<Capture>>> {
        if self.capture.is_none() && op.blocking.is_none() && op.kind != OpKind::EndCapture {
            let admitted = self.check_views(op);
            debug_assert_eq!(
                admitted.is_ok(),
                self.admit_in_full(op, mode).is_ok(),
                "the quick admission of `{}` disagrees with the whole one",
                op.name
            );
            return admitted.map(|()| None);
        }
        self.admit_in_full(op, mode)
    }

    /// [`Core::admit`], every step.
    fn admit_in_full(&mut self, op: &Op, mode: Mode) -> Result<Option<Box<Capture>>> {
        let rule = op.capture_rule();
        let ended = self.check_capture_state(op, rule)?;
        self.check_views(op)?;
        self.refuse_illegal(op, rule, mode)?;
        self.check_sync_debug(op, mode)?;
        Ok(ended)
    }

    /// Checks that the memory `op`'s GPU work touches lies in live allocations.
    #[inline]
    fn check_views(&self, op: &Op) -> Result<()> {
        for effect in op.race.iter() {
            for node in effect.gpu_accesses() {
                for r in node.ranges.iter() {
                    if r.addr < HOST_BASE && r.bytes > 0 {
                        self.allocations
                            .check(op.static_name(), r.addr, r.bytes, op.site)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Sync debug mode, for a call that can block the CPU.
    fn check_sync_debug(&self, op: &Op, mode: Mode) -> Result<()> {
        let Some(reason) = op.blocking else {
            return Ok(());
        };
        match (self.sync_debug, mode) {
            (SyncDebug::Off, _) => Ok(()),
            (_, Mode::Forced) => {
                eprintln!(
                    "gpu: sync debug: `{}` at {} blocks the CPU (a drop cannot be refused)",
                    op.name, op.site
                );
                Ok(())
            }
            (SyncDebug::Warn, Mode::Refusable) => {
                eprintln!(
                    "gpu: sync debug: `{}` at {} blocks the CPU: {reason}",
                    op.name, op.site
                );
                Ok(())
            }
            (SyncDebug::Error, Mode::Refusable) => Err(GpuError::SyncDisallowed {
                op: op.static_name(),
                reason: reason.explain().to_string(),
                site: op.site,
            }),
        }
    }

    /// Tells the race checker what a call did: the one place that updates it.
    #[inline]
    fn apply_race(&mut self, op: &Op) {
        // With the checker off and no capture to keep nodes for, no effect
        // does anything: the common case of a device opened without checks.
        if self.checks.races || self.capture.is_some() {
            self.apply_effects(op);
        }
    }

    /// [`Core::apply_race`]'s work, when there is any.
    fn apply_effects(&mut self, op: &Op) {
        let (stream, site) = (op.stream, op.site);
        let on = || stream.expect("a call with an effect on its stream names the stream");
        for effect in op.race.iter() {
            match effect {
                Race::Access(node) => self.stream_access(on(), node, site),
                // Off, the checker learns nothing; a capture still keeps
                // what its nodes touch (above), for each replay's views.
                _ if !self.checks.races => {}
                Race::Replay(nodes) => {
                    for node in nodes.iter() {
                        self.stream_access(on(), node, site);
                    }
                }
                Race::Cpu(node) => {
                    self.race
                        .on_cpu_access(&node.ranges, node.what.clone(), site);
                }
                Race::StreamDone => self.race.on_stream_done(on()),
                Race::EventDone(event) => self.race.on_event_done(*event),
                Race::DeviceDone => self.race.on_device_done(),
                Race::Record(event) | Race::Wait(event) if self.captured_edge(on(), *event) => {
                    let capture = self.capture.as_mut().expect("a captured edge");
                    match effect {
                        Race::Record(_) => capture.race.on_record(*event, on()),
                        _ => capture.race.on_wait(on(), *event),
                    }
                }
                Race::Record(event) => self.race.on_record(*event, on()),
                Race::Wait(event) => self.race.on_wait(on(), *event),
                Race::Free {
                    addr,
                    bytes,
                    allocated_at,
                } => self
                    .race
                    .on_free(stream, (*addr, *bytes), site, *allocated_at),
            }
        }
    }

    /// GPU work on `stream`: checked by the race checker, or, on a stream of
    /// the capture in progress, kept as a node of the graph for its replays
    /// and checked by the capture's own race checker against the other
    /// branches of a fork.
    ///
    /// Work that touches no memory (`spin`) tells the checker nothing. It
    /// would only join the CPU's clock into the stream's and tick the
    /// stream's own entry: every later reader of the stream's clock (its
    /// next access, an event recorded on it, a wait, a free) joins the CPU's
    /// clock first, which has only grown since, and a tick that no recorded
    /// access carries orders nothing, so no report changes. It still counts
    /// as a node of a graph being captured.
    #[inline]
    fn stream_access(&mut self, stream: StreamId, node: &NodeAccess, site: CallSite) {
        let races = self.checks.races && node.ranges.any_bytes();
        match &mut self.capture {
            Some(c) if c.has(stream) => {
                c.nodes.push(node.clone());
                if races {
                    c.race
                        .on_stream_op(stream, &node.ranges, node.what.clone(), site);
                }
            }
            _ if !races => {}
            _ => self
                .race
                .on_stream_op(stream, &node.ranges, node.what.clone(), site),
        }
    }

    #[inline]
    fn push(&mut self, op: &Op, start: u64, end: u64, span: Span) {
        let captured = self.on_capturing_stream(op) && op.capture_rule().records();
        self.entries.push(op, start, end, span, captured);
    }

    /// The trace so far, with pending GPU spans resolved (may wait on the CUDA backend).
    pub(crate) fn trace(&mut self) -> Trace {
        let mut trace = self
            .entries
            .trace(self.exec.as_mut(), &self.info, &self.streams);
        trace.ranges = self.ranges.snapshot(self.exec.now_ns(), self.entries.len());
        trace
    }

    /// Number of entries so far: the `seq` the next call will get.
    pub(crate) fn trace_len(&self) -> u64 {
        self.entries.len()
    }

    /// Drops the trace so far (sequence numbers start again at 0).
    pub(crate) fn clear_trace(&mut self) {
        self.entries.clear();
        self.ranges.clear();
    }
}

/// The stream of a call that is made on one.
fn on_stream(op: &Op) -> StreamId {
    op.stream
        .expect("a call on a stream names the stream (`Op::on`)")
}

#[cfg(test)]
mod tests;
