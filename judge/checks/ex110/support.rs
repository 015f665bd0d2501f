//! What the checks share: the decoder, the prompts, the run of the
//! learner's `CapturedStep` (or a test's stand-in) over a device history
//! with the trace of each call marked, eager decoding on the CPU, and
//! words for a failed call.

use gpu::{Decoder, DecoderConfig, Device, GpuError, RaceReport, Stream, TraceEntry, View};
use judge_harness::{Ctx, Failure};
use std::time::Duration;

/// GPU time of one decode step (the decoder's spin pad).
const GPU_STEP: Duration = Duration::from_micros(200);
/// Steps of the run.
pub(super) const STEPS: usize = 12;
/// The tokens each step decodes from, in row 0 of the history.
pub(super) const PROMPTS: [i32; 5] = [396, 104, 68, 17, 34];
/// Tokens per step: one per prompt.
pub(super) const BATCH: usize = PROMPTS.len();
/// The step given new tokens instead of the row the step before wrote, as
/// a serving loop gives a step the sampler's choice or a new request's.
pub(super) const FRESH_STEP: usize = 6;
/// The new tokens step [`FRESH_STEP`] is given, in the history's last row.
pub(super) const FRESH: [i32; 5] = [7, 250, 33, 480, 91];
/// What the history's rows 1 to [`STEPS`] hold before the run: no token.
pub(super) const UNWRITTEN: i32 = -1;

/// A captured step as the checks drive it: the learner's, or in the
/// suite's own tests a known-wrong one.
pub(super) trait Stepper {
    /// One step: `next` gets the tokens the decoder chooses after `tokens`.
    fn step(&mut self, tokens: View<i32>, next: View<i32>) -> gpu::Result<()>;
}

impl Stepper for captured_step::CapturedStep {
    fn step(&mut self, tokens: View<i32>, next: View<i32>) -> gpu::Result<()> {
        captured_step::CapturedStep::step(self, tokens, next)
    }
}

/// A `CapturedStep::new` with the exercise's signature.
pub(super) type New = fn(&Stream, &Decoder, usize) -> gpu::Result<Box<dyn Stepper>>;

/// The `new` the checks run: the learner's, unless a test of the suite put
/// another in its place.
fn chosen() -> New {
    #[cfg(test)]
    if let Some(other) = super::tests::replacement() {
        return other;
    }
    |stream, decoder, batch| {
        Ok(Box::new(captured_step::CapturedStep::new(
            stream, decoder, batch,
        )?))
    }
}

/// One run of the learner's step: what the history holds after it, the
/// races the run made, and the trace of `new` and of each step.
pub(super) struct Run {
    /// The device, whose trace holds the run.
    pub(super) device: Device,
    /// The decoder.
    pub(super) decoder: Decoder,
    /// Rows 0 to [`STEPS`] of the history, then [`FRESH`], read once
    /// after the run.
    pub(super) history: Vec<i32>,
    /// The races the race checker found during the run.
    pub(super) races: Vec<RaceReport>,
    /// The trace of `new`.
    pub(super) new: Vec<TraceEntry>,
    /// The trace of each step.
    pub(super) steps: Vec<Vec<TraceEntry>>,
}

impl Run {
    /// Row `s` of the history: what step `s - 1` wrote into its `next`
    /// (row 0: the prompts).
    pub(super) fn row(&self, s: usize) -> &[i32] {
        &self.history[s * BATCH..(s + 1) * BATCH]
    }

    /// The tokens step `s` was given: row `s`, or at [`FRESH_STEP`] the
    /// new tokens (the history's last row).
    pub(super) fn given(&self, s: usize) -> &[i32] {
        self.row(given_row(s))
    }
}

/// The history's row that step `s` is given as its `tokens`.
fn given_row(s: usize) -> usize {
    if s == FRESH_STEP { STEPS + 1 } else { s }
}

/// Sets up the device, the decoder (warmed up by one eager step) and the
/// history, then makes the learner's step and runs it [`STEPS`] times, row
/// s into row s + 1 (step [`FRESH_STEP`] given new tokens instead of row
/// [`FRESH_STEP`]), each call's trace marked.
pub(super) fn run(ctx: &Ctx) -> Result<Run, Failure> {
    let device = ctx.device()?;
    let stream = device.new_stream()?;
    let config = DecoderConfig {
        vocab: 512,
        hidden: 64,
        seed: ctx.seed_for(110),
        step_time: GPU_STEP,
    };
    let decoder = Decoder::new(&stream, config)?;
    let history = stream.alloc_zeros::<i32>((STEPS + 2) * BATCH)?;
    let row = |r: usize| history.slice(r * BATCH..(r + 1) * BATCH);
    stream.fill(&history, UNWRITTEN)?;
    stream.copy_from_host(&PROMPTS, row(0))?;
    stream.copy_from_host(&FRESH, row(STEPS + 1))?;
    // A real GPU may load a kernel at its first launch: not in the run.
    let warm = stream.alloc_zeros::<i32>(2)?;
    stream.decode_step(&decoder, warm.slice(0..1), warm.slice(1..2))?;
    stream.synchronize()?;
    drop(warm);
    device.clear_trace();
    let mut marks = vec![device.trace_mark()];
    let mut step = chosen()(&stream, &decoder, BATCH).map_err(|e| call_failed("new", e))?;
    for s in 0..STEPS {
        marks.push(device.trace_mark());
        step.step(row(given_row(s)), row(s + 1))
            .map_err(|e| call_failed(&format!("step {s}"), e))?;
    }
    marks.push(device.trace_mark());
    let tokens = stream.to_vec(&history)?;
    drop(step);
    let races = device.take_races();
    let trace = device.trace();
    let mut calls = marks.windows(2).map(|w| {
        trace
            .since(w[0])
            .iter()
            .take_while(|e| e.seq < w[1])
            .cloned()
            .collect::<Vec<_>>()
    });
    let new = calls.next().unwrap_or_default();
    Ok(Run {
        device,
        decoder,
        history: tokens,
        races,
        new,
        steps: calls.collect(),
    })
}

/// A call of the learner's (`new`, `step 3`) that returned an error, with
/// what the error means for a captured step.
fn call_failed(call: &str, e: GpuError) -> Failure {
    let text = e.to_string();
    let failure = Failure::new(
        format!("`{call}` to succeed"),
        format!("`{call}` failed: {text}"),
    );
    if text.contains("not inside a live allocation") {
        failure.detail(
            "the graph replays on the addresses it captured, and one of them was freed: a static buffer was dropped or replaced by a new one (`self.input = stream.alloc_zeros(..)` frees the buffer the graph reads). Keep the buffers the graph was captured with for as long as the graph, and copy new tokens into them; see cuda-graphs.md#fixed-addresses-and-shapes",
        )
    } else if text.contains("captur") {
        failure.detail(
            "between `begin_capture` and `end_capture` only the step may be queued: an allocation, a synchronize or a copy from or to host memory cannot be captured, and invalidates the capture. Allocate before `begin_capture`; see cuda-graphs.md#what-cannot-be-captured",
        )
    } else {
        failure
    }
}

/// One trace entry for a person: what and where.
pub(super) fn describe(e: &TraceEntry) -> String {
    format!("`{}` at {}", e.name, e.site)
}
