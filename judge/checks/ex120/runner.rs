//! Running the judge's steps on its device, and the traces it hands over.
//!
//! A run opens a device of the judge's backend whose trace has every
//! operation's GPU span (a real GPU times each with events), with a main
//! and a side stream and the buffers the calls copy; it warms every call
//! up, then runs each step of the seed (`scenes.rs`), opening and closing
//! its ranges and marking the `seq` of every call, and reads the trace
//! once at the end. Each step's trace is handed over on its own: its
//! entries and its ranges. The truth of each range comes from how the step
//! was built (`truth.rs`), its times from that same trace, so the
//! comparison is exact on any device. The steps depend only on the seed
//! and the backend, so a harness runs them once and every check reads the
//! same run.

use super::scenes::{Action, MAIN, Part, SIDE, steps};
use super::truth::{Node, nodes, truth};
use attribute_ranges::RangeTime;
use gpu::{Device, DeviceBuffer, Event, PinnedBuffer, RangeGuard, Stream, Trace};
use judge_harness::{Ctx, Failure};
use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;
use std::time::Duration;

/// Tokens in a batch: what the upload, the downloads and `to_vec` copy.
const BATCH: usize = 64;
/// Floats of each kv cache buffer (4 MiB): what a device copy copies.
const KV: usize = 1 << 20;

/// One step as it ran.
#[derive(Clone, Debug)]
pub(crate) struct Traced {
    /// The step's number, from 1.
    pub(crate) number: usize,
    /// Its trace as the learner gets it: the step's entries and ranges.
    pub(crate) trace: Trace,
    /// Its ranges as the judge opened them, in the order of `trace.ranges`.
    pub(crate) nodes: Vec<Node>,
    /// Each range's time, by how the step was built.
    pub(crate) truth: Vec<RangeTime>,
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

/// The device, its two streams and what the calls copy.
struct Rig {
    device: Device,
    streams: [Stream; 2],
    tokens: DeviceBuffer<i32>,
    pinned: PinnedBuffer<i32>,
    kv: [DeviceBuffer<f32>; 2],
    fork: Event,
}

impl Rig {
    /// Opens the judge's device, timed, with its streams and buffers.
    fn open(ctx: &Ctx) -> Result<Self, Failure> {
        let device = ctx.timed_device()?;
        let streams = [device.new_stream()?, device.new_stream()?];
        let main = &streams[MAIN];
        let rig = Self {
            tokens: main.alloc_zeros(BATCH)?,
            pinned: device.alloc_pinned(BATCH)?,
            kv: [main.alloc_zeros(KV)?, main.alloc_zeros(KV)?],
            fork: device.new_event()?,
            streams,
            device,
        };
        rig.device.synchronize()?;
        Ok(rig)
    }

    /// Makes the call `action`.
    fn act(&self, action: Action) -> gpu::Result<()> {
        let us = Duration::from_micros;
        match action {
            Action::Kernel { stream, us: n, .. } => self.streams[stream].spin(us(n)),
            Action::Upload { stream } => {
                self.streams[stream].copy_from_pinned(&self.pinned, &self.tokens)
            }
            Action::DeviceCopy { stream } => self.streams[stream].copy(&self.kv[0], &self.kv[1]),
            Action::PinnedDownload { stream } => {
                self.streams[stream].copy_to_pinned(&self.tokens, &self.pinned)
            }
            Action::ToVec { stream } => self.streams[stream].to_vec(&self.tokens).map(drop),
            Action::HostWork { us: n, .. } => {
                self.device.host_work(us(n));
                Ok(())
            }
            Action::Fork => {
                self.fork.record(&self.streams[MAIN])?;
                self.streams[SIDE].wait_event(&self.fork)
            }
        }
    }

    /// Makes every kind of call once on each stream (a real GPU loads a
    /// kernel, and sets up a copy path, at its first use), then waits.
    fn warm_up(&self) -> gpu::Result<()> {
        for stream in [MAIN, SIDE] {
            for action in [
                Action::Kernel {
                    stream,
                    us: 10,
                    label: "warm-up",
                },
                Action::Upload { stream },
                Action::DeviceCopy { stream },
                Action::PinnedDownload { stream },
                Action::ToVec { stream },
                Action::Fork,
            ] {
                self.act(action)?;
            }
        }
        self.device.synchronize()
    }

    /// Runs one step's script: each part with the `seq`s of its calls
    /// (empty for an open or a close, at the call it comes before).
    fn run_step(&self, script: &[Part]) -> Result<Vec<(Part, Range<u64>)>, Failure> {
        let mut open: Vec<RangeGuard<'_>> = Vec::new();
        let mut marked = Vec::new();
        for part in script {
            let before = self.device.trace_mark();
            match part {
                Part::Open(name) => open.push(self.device.range(name)),
                Part::Close => drop(open.pop().expect("the script closes only what it opened")),
                Part::Do(action) => self.act(*action)?,
            }
            marked.push((part.clone(), before..self.device.trace_mark()));
        }
        self.device.synchronize()?;
        Ok(marked)
    }
}

/// `trace` cut to the entries `seqs` and the ranges `ranges` (by their
/// place in `trace.ranges`): what the learner gets of one step.
fn cut(trace: &Trace, seqs: &Range<u64>, ranges: Range<usize>) -> Trace {
    let mut step = trace.clone();
    step.entries.retain(|e| seqs.contains(&e.seq));
    step.ranges = trace.ranges.get(ranges).unwrap_or_default().to_vec();
    step
}

/// Runs every step of `ctx`'s seed.
fn run_steps(ctx: &Ctx) -> Result<Run, Failure> {
    let rig = Rig::open(ctx)?;
    rig.warm_up()?;
    let mut ran = Vec::new();
    for script in steps(ctx.seed()) {
        ran.push(rig.run_step(&script)?);
    }
    let trace = rig.device.trace();
    ctx.save_timeline(&rig.device);
    let (mut steps, mut opened) = (Vec::new(), 0);
    for (i, marked) in ran.iter().enumerate() {
        let start = marked.first().map_or(0, |m| m.1.start);
        let end = marked.last().map_or(start, |m| m.1.end);
        let nodes = nodes(marked);
        let step = cut(&trace, &(start..end), opened..opened + nodes.len());
        opened += nodes.len();
        let truth = truth(&step, &nodes).map_err(|why| {
            Failure::new(
                "the judge's step traced as the judge ran it",
                format!("step {}: {why}", i + 1),
            )
        })?;
        steps.push(Traced {
            number: i + 1,
            trace: step,
            nodes,
            truth,
        });
    }
    Ok(Run { steps })
}
