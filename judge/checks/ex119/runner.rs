//! Running the judge's steps on its device, and the traces it hands over.
//!
//! A run opens a device of the judge's backend whose trace has every
//! operation's GPU span (a real GPU times each with events), with two
//! streams and the buffers the calls copy; it warms every call up, then
//! runs each step of the seed (`scenes.rs`) behind a mark, and reads the
//! trace once at the end. Each step's trace is handed over as a profile
//! is: its entries alone, `blocking` cleared on every one. The truth of
//! each call is how the step was built; a call is graded only when the
//! device did as built (the judge's own reading of its trace, with
//! `blocking`, agrees), which the suite's test shows it always does on the
//! virtual GPU. The steps depend only on the seed and the backend, so a
//! harness runs them once and every check reads the same run.

use super::draw::{calls, steps};
use super::scenes::{Action, Beat};
use super::timeline::ended_in;
use find_the_wait::WaitKind;
use gpu::{Device, DeviceBuffer, Event, PinnedBuffer, Segment, Stream, Trace};
use judge_harness::{Ctx, Failure};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

/// Floats in a stream's logits (what `to_vec` and the pinned download copy).
const LOGITS: usize = 1024;
/// Words of a small pageable upload: 4 KiB, which travels inline.
const SMALL_WORDS: usize = 1024;
/// Bytes of each raw segment freed.
const SEGMENT_BYTES: usize = 1 << 20;

/// One call as it ran, with its truth.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Call {
    /// Its entry's `seq`.
    pub(crate) seq: u64,
    /// The call.
    pub(crate) action: Action,
    /// What the CPU waited for in it, by how the step was built.
    pub(crate) waits: Option<WaitKind>,
    /// Whether the device did as built: only such a call is graded.
    pub(crate) foreseen: bool,
}

/// One step as it ran.
#[derive(Clone, Debug)]
pub(crate) struct Traced {
    /// The step's number, from 1.
    pub(crate) number: usize,
    /// Its trace as the learner gets it: the step's entries, `blocking`
    /// cleared.
    pub(crate) trace: Trace,
    /// Its calls, one per entry, in order.
    pub(crate) calls: Vec<Call>,
}

impl Traced {
    /// The call of `seq`, if it is one of this step's.
    pub(crate) fn call(&self, seq: u64) -> Option<&Call> {
        let first = self.calls.first()?.seq;
        self.calls
            .get(usize::try_from(seq.checked_sub(first)?).ok()?)
    }

    /// The calls the CPU waited in, among those graded.
    pub(crate) fn waits(&self) -> impl Iterator<Item = &Call> {
        self.calls
            .iter()
            .filter(|c| c.foreseen && c.waits.is_some())
    }
}

/// A whole run: every step.
#[derive(Clone, Debug)]
pub(crate) struct Run {
    pub(crate) steps: Vec<Traced>,
}

thread_local! {
    /// The runs made so far in this process, by seed and backend.
    static RUNS: RefCell<Vec<(u64, gpu::Backend, Rc<Run>)>> = const { RefCell::new(Vec::new()) };
}

/// The run of `ctx`'s seed on its backend, made once per process.
pub(crate) fn run(ctx: &Ctx) -> Result<Rc<Run>, Failure> {
    let key = (ctx.seed(), ctx.backend());
    let cached = RUNS.with(|runs| {
        let runs = runs.borrow();
        runs.iter()
            .find(|r| (r.0, r.1) == key)
            .map(|r| Rc::clone(&r.2))
    });
    if let Some(run) = cached {
        return Ok(run);
    }
    let run = Rc::new(run_steps(ctx)?);
    RUNS.with(|runs| runs.borrow_mut().push((key.0, key.1, Rc::clone(&run))));
    Ok(run)
}

/// The device, its streams and what the calls copy, free and time.
struct Rig {
    device: Device,
    streams: Vec<Stream>,
    logits: Vec<DeviceBuffer<f32>>,
    small: Vec<DeviceBuffer<u32>>,
    large: Vec<DeviceBuffer<u32>>,
    pinned: Vec<PinnedBuffer<f32>>,
    host_small: Vec<u32>,
    host_large: Vec<u32>,
    events: Vec<Event>,
    /// Raw segments and pinned buffers to free, the last first.
    segments: Vec<Segment>,
    freeable: Vec<PinnedBuffer<f32>>,
}

impl Rig {
    /// Opens the judge's device, timed, with two streams and their buffers.
    fn open(ctx: &Ctx) -> Result<Self, Failure> {
        let device = ctx.timed_device()?;
        // Four times the driver's staging buffer: a copy that waits for its stream.
        let large_words = device.calibration().staging_bytes as usize;
        let mut rig = Self {
            streams: Vec::new(),
            logits: Vec::new(),
            small: Vec::new(),
            large: Vec::new(),
            pinned: Vec::new(),
            host_small: vec![1; SMALL_WORDS],
            host_large: vec![2; large_words],
            events: vec![device.new_event()?, device.new_event()?],
            segments: Vec::new(),
            freeable: Vec::new(),
            device,
        };
        for _ in 0..2 {
            let stream = rig.device.new_stream()?;
            rig.logits.push(stream.alloc_zeros(LOGITS)?);
            rig.small.push(stream.alloc_zeros(SMALL_WORDS)?);
            rig.large.push(stream.alloc_zeros(large_words)?);
            rig.pinned.push(rig.device.alloc_pinned(LOGITS)?);
            rig.streams.push(stream);
        }
        rig.device.synchronize()?;
        Ok(rig)
    }

    /// Allocates `segments` raw segments and `pinned` pinned buffers to free.
    fn provide(&mut self, segments: usize, pinned: usize) -> gpu::Result<()> {
        for _ in 0..segments {
            self.segments
                .push(self.device.alloc_segment(SEGMENT_BYTES)?);
        }
        for _ in 0..pinned {
            self.freeable.push(self.device.alloc_pinned(LOGITS)?);
        }
        Ok(())
    }

    /// Makes the call `action`.
    fn act(&mut self, action: Action) -> gpu::Result<()> {
        let us = Duration::from_micros;
        match action {
            Action::Kernel { stream, us: n } => self.streams[stream].spin(us(n)),
            Action::HostWork { us: n } => {
                self.device.host_work(us(n));
                Ok(())
            }
            Action::HostWorkUntil { kernel_us, calls } => {
                let cal = self.device.calibration();
                let ns =
                    (kernel_us * 1000 + cal.kernel_min_ns).saturating_sub(calls * cal.api_call_ns);
                self.device.host_work(Duration::from_nanos(ns));
                Ok(())
            }
            Action::ToVec { stream } => self.streams[stream].to_vec(&self.logits[stream]).map(drop),
            Action::SmallUpload { stream } => {
                self.streams[stream].copy_from_host(&self.host_small, &self.small[stream])
            }
            Action::LargeUpload { stream } => {
                self.streams[stream].copy_from_host(&self.host_large, &self.large[stream])
            }
            Action::PinnedDownload { stream } => {
                self.streams[stream].copy_to_pinned(&self.logits[stream], &self.pinned[stream])
            }
            Action::Record { event, stream } => self.events[event].record(&self.streams[stream]),
            Action::Query { event } => self.events[event].query().map(drop),
            Action::SyncEvent { event } => self.events[event].synchronize(),
            Action::SyncStream { stream } => self.streams[stream].synchronize(),
            Action::SyncDevice => self.device.synchronize(),
            Action::Elapsed => self.events[0].elapsed_ms(&self.events[1]).map(drop),
            Action::AllocPinned => {
                self.freeable.push(self.device.alloc_pinned(LOGITS)?);
                Ok(())
            }
            Action::AllocSegment => {
                self.segments
                    .push(self.device.alloc_segment(SEGMENT_BYTES)?);
                Ok(())
            }
            Action::FreePinned => {
                drop(self.freeable.pop().expect("a pinned buffer was provided"));
                Ok(())
            }
            Action::FreeSegment => {
                let segment = self.segments.pop().expect("a segment was provided");
                self.device.free_segment(segment)
            }
        }
    }

    /// Makes every kind of call once on each stream (a real GPU loads a
    /// kernel, and sets up a copy path, at its first use), then waits.
    fn warm_up(&mut self) -> gpu::Result<()> {
        for stream in 0..self.streams.len() {
            self.provide(1, 1)?;
            for action in [
                Action::Kernel { stream, us: 10 },
                Action::ToVec { stream },
                Action::SmallUpload { stream },
                Action::LargeUpload { stream },
                Action::PinnedDownload { stream },
                Action::Record { event: 0, stream },
                Action::Record { event: 1, stream },
                Action::Query { event: 1 },
                Action::SyncEvent { event: 1 },
                Action::Elapsed,
                Action::SyncStream { stream },
                Action::FreeSegment,
                Action::FreePinned,
            ] {
                self.act(action)?;
            }
        }
        self.device.synchronize()
    }

    /// Runs one step's calls behind a mark; returns the mark and each
    /// call with its truth (not yet checked against the trace).
    fn run_step(&mut self, beats: &[Beat], seed: u64) -> Result<(u64, Vec<Call>), Failure> {
        let (segments, pinned) = beats
            .iter()
            .map(|b| b.frees())
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        self.provide(segments, pinned)?;
        self.device.synchronize()?;
        let mark = self.device.trace_mark();
        let mut ran = Vec::new();
        for step in calls(beats, seed) {
            let seq = self.device.trace_mark();
            self.act(step.action)?;
            if self.device.trace_mark() != seq + 1 {
                panic!(
                    "the judge's call {:?} made no single trace entry",
                    step.action
                );
            }
            ran.push(Call {
                seq,
                action: step.action,
                waits: step.waits,
                foreseen: false,
            });
        }
        self.device.synchronize()?;
        Ok((mark, ran))
    }
}

/// Whether the device did as `call` was built, from the judge's own trace
/// (with `blocking`): a call that waits covers the end of GPU work queued
/// before it; a call that can wait and does not covers none.
fn foreseen(entries: &[gpu::TraceEntry], call: &Call) -> bool {
    let Some(entry) = entries.iter().find(|e| e.seq == call.seq) else {
        return false;
    };
    let covers = !ended_in(entries, entry).is_empty();
    match (call.waits, entry.blocking) {
        (Some(_), Some(_)) => covers,
        (Some(_), None) => false,
        (None, Some(_)) => !covers,
        (None, None) => true,
    }
}

/// `trace` cut to the entries from `mark` to `end`, `blocking` cleared:
/// what a profile shows.
fn profile(trace: &Trace, mark: u64, end: u64) -> Trace {
    let mut cut = trace.clone();
    cut.entries.retain(|e| (mark..end).contains(&e.seq));
    for entry in &mut cut.entries {
        entry.blocking = None;
    }
    cut
}

/// Runs every step of `ctx`'s seed.
fn run_steps(ctx: &Ctx) -> Result<Run, Failure> {
    let mut rig = Rig::open(ctx)?;
    rig.warm_up()?;
    let mut ran = Vec::new();
    for (i, beats) in steps(ctx.seed()).iter().enumerate() {
        let (mark, calls) = rig.run_step(beats, ctx.seed() ^ i as u64)?;
        ran.push((mark, calls));
    }
    let trace = rig.device.trace();
    ctx.save_timeline(&rig.device);
    let steps = ran
        .into_iter()
        .enumerate()
        .map(|(i, (mark, mut calls))| {
            let end = calls.last().map_or(mark, |c| c.seq + 1);
            for call in &mut calls {
                call.foreseen = foreseen(trace.since(mark), call);
            }
            Traced {
                number: i + 1,
                trace: profile(&trace, mark, end),
                calls,
            }
        })
        .collect();
    Ok(Run { steps })
}
