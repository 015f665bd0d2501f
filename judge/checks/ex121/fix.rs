//! Part 2's run: the judge's reference step, then the learner's
//! `Engine`, on one device of the judge's backend with GPU timing, each
//! for [`STEPS`] steps on batches drawn from the seed. What the checks of
//! part 2 read: each step's trace and time, the tokens, the races.

use super::engine::{COLS, Change, EXERCISE, ROWS, Rig};
use gpu::{Device, PinnedBuffer, RaceReport, Stream, Trace, TraceEntry};
use judge_harness::{Ctx, Failure, SplitMix};
use std::cell::RefCell;
use std::rc::Rc;

/// Steps of each run.
pub(super) const STEPS: usize = 6;

/// An engine as the checks drive it: the learner's, or in the suite's own
/// tests a known-wrong one.
pub(crate) trait Stepper {
    /// One step, the next batch in `next`.
    fn step(&mut self, next: &PinnedBuffer<f32>) -> gpu::Result<Vec<i32>>;
}

impl Stepper for find_the_regression::Engine {
    fn step(&mut self, next: &PinnedBuffer<f32>) -> gpu::Result<Vec<i32>> {
        find_the_regression::Engine::step(self, next)
    }
}

/// An `Engine::new` with the exercise's signature.
pub(crate) type New = fn(&Stream, &PinnedBuffer<f32>) -> gpu::Result<Box<dyn Stepper>>;

/// The `new` a test of the suite put in place of the learner's, if any.
fn replaced() -> Option<New> {
    #[cfg(test)]
    return super::tests::engine_replacement();
    #[cfg(not(test))]
    None
}

/// The `new` the checks run: the learner's, unless a test put another.
fn chosen() -> New {
    replaced()
        .unwrap_or(|stream, first| Ok(Box::new(find_the_regression::Engine::new(stream, first)?)))
}

/// One run of the learner's engine, and the reference's times.
pub(crate) struct Run {
    /// The whole trace.
    pub(crate) trace: Trace,
    /// Each step's entries.
    pub(crate) steps: Vec<Vec<TraceEntry>>,
    /// Each step's tokens, and the reference's.
    pub(crate) tokens: Vec<Vec<i32>>,
    pub(crate) expected: Vec<Vec<i32>>,
    /// The races the race checker found.
    pub(crate) races: Vec<RaceReport>,
    /// Each step's CPU time, from call to return, ns: the learner's, the reference's.
    pub(crate) times: Vec<u64>,
    pub(crate) reference_times: Vec<u64>,
    /// The kernels launched in one step of the reference.
    pub(crate) reference_kernels: usize,
    /// The compute stream's id.
    pub(crate) compute: gpu::StreamId,
}

thread_local! {
    /// The runs made so far in this process, by seed and backend.
    static RUNS: RefCell<Vec<(u64, gpu::Backend, Rc<Run>)>> = const { RefCell::new(Vec::new()) };
}

/// The run of `ctx`'s seed on its backend, made once per process (a
/// test's stand-in engine is run each time).
pub(crate) fn run(ctx: &Ctx) -> Result<Rc<Run>, Failure> {
    let key = (ctx.seed(), ctx.backend());
    if replaced().is_some() {
        return Ok(Rc::new(run_engine(ctx)?));
    }
    let cached = RUNS.with(|r| {
        r.borrow()
            .iter()
            .find(|c| (c.0, c.1) == key)
            .map(|c| Rc::clone(&c.2))
    });
    if let Some(run) = cached {
        return Ok(run);
    }
    let run = Rc::new(run_engine(ctx)?);
    RUNS.with(|r| r.borrow_mut().push((key.0, key.1, Rc::clone(&run))));
    Ok(run)
}

/// Batch `t` of `seed`: in each row, distinct whole numbers (exact in any
/// float arithmetic), the smallest at a column drawn from the seed.
fn batch(seed: u64, t: usize) -> Vec<f32> {
    let mut rng = SplitMix::new(seed ^ (t as u64).wrapping_mul(0x9e37_79b9));
    let mut values = Vec::with_capacity(ROWS * COLS);
    for _ in 0..ROWS {
        let (step, start) = (
            1 + 2 * rng.below(1000) as usize,
            rng.below(COLS as u64) as usize,
        );
        // `step` is odd and COLS a power of two: the row is a permutation.
        values.extend((0..COLS).map(|c| ((start + c * step) % COLS) as f32));
    }
    values
}

/// Each row's smallest value's column: the tokens of a step on `batch`
/// (argmax of the negated logits).
fn tokens_of(batch: &[f32]) -> Vec<i32> {
    batch
        .chunks(COLS)
        .map(|row| {
            row.iter()
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(b.1))
                .map_or(0, |(c, _)| c as i32)
        })
        .collect()
}

/// Warms every kernel and copy up (a real GPU loads a kernel at its first launch).
fn warm_up(device: &Device) -> Result<Vec<u64>, Failure> {
    let mut rig = Rig::new(device, EXERCISE)?;
    for _ in 0..2 {
        rig.step(Change::None)?;
    }
    let mut times = Vec::new();
    for _ in 0..STEPS {
        let began = device.now();
        rig.step(Change::None)?;
        times.push((device.now() - began).as_nanos() as u64);
    }
    Ok(times)
}

/// The reference's step times and kernels, then the learner's run.
fn run_engine(ctx: &Ctx) -> Result<Run, Failure> {
    let device = ctx.timed_device()?;
    let reference_times = warm_up(&device)?;
    let reference_kernels = kernels_of_last_step(&device.trace());
    device.synchronize()?;
    device.take_races();
    let pinned = (0..=STEPS)
        .map(|t| {
            let p = device.alloc_pinned::<f32>(ROWS * COLS)?;
            p.write(&batch(ctx.seed_for(121), t))?;
            Ok(p)
        })
        .collect::<gpu::Result<Vec<_>>>()?;
    let expected = (0..STEPS)
        .map(|t| tokens_of(&batch(ctx.seed_for(121), t)))
        .collect();
    let stream = device.new_stream()?;
    device.clear_trace();
    let mut engine = chosen()(&stream, &pinned[0]).map_err(|e| failed("Engine::new", e))?;
    let (mut marks, mut tokens, mut times) = (Vec::new(), Vec::new(), Vec::new());
    for t in 0..STEPS {
        marks.push(device.trace_mark());
        let began = device.now();
        tokens.push(
            engine
                .step(&pinned[t + 1])
                .map_err(|e| failed(&format!("step {t}"), e))?,
        );
        times.push((device.now() - began).as_nanos() as u64);
    }
    marks.push(device.trace_mark());
    device.synchronize()?;
    // The races of the steps: the engine's drop (its buffers freed) is not
    // this exercise's.
    let races = device.take_races();
    drop(engine);
    ctx.save_timeline(&device);
    let trace = device.trace();
    let steps = marks
        .windows(2)
        .map(|w| {
            trace
                .since(w[0])
                .iter()
                .take_while(|e| e.seq < w[1])
                .cloned()
                .collect()
        })
        .collect();
    Ok(Run {
        steps,
        tokens,
        expected,
        races,
        times,
        reference_times,
        reference_kernels,
        compute: stream.id(),
        trace,
    })
}

/// The kernels launched in the last `step` range of `trace`.
fn kernels_of_last_step(trace: &Trace) -> usize {
    let step = trace.ranges.iter().rev().find(|r| r.name == "step");
    step.map_or(0, |r| {
        trace
            .range_entries(r)
            .iter()
            .filter(|e| e.op == gpu::OpKind::Launch)
            .count()
    })
}

/// A call of the learner's that returned an error.
fn failed(call: &str, e: gpu::GpuError) -> Failure {
    Failure::new(
        format!("`{call}` to succeed"),
        format!("`{call}` failed: {e}"),
    )
}
