//! What the checks share: the decoder, the workload, the run of the
//! learner's `Decoding` (or a test's stand-in) behind a spin with the trace
//! of each step marked, the reference on the CPU, and words for trace
//! entries and failed calls.

use gpu::{
    CallSite, Decoder, DecoderConfig, Device, GpuError, OpKind, RaceReport, Stream, TraceEntry,
};
use judge_harness::{Ctx, Failure};
use std::time::Duration;
use step_without_syncs::{Config, Report};

/// GPU time of one decode step (the decoder's spin pad).
pub(super) const GPU_STEP: Duration = Duration::from_millis(1);
/// Steps of the run.
pub(super) const STEPS: usize = 16;
/// Requests in the batch.
pub(super) const BATCH: usize = 32;
/// Tokens of the decoder.
const VOCAB: usize = 256;
/// The spin queued on the stream after `new`, before the first step.
pub(super) const GATE: Duration = Duration::from_millis(40);

/// A decoding as the checks drive it: the learner's, or in the suite's own
/// tests a known-wrong one.
pub(super) trait Stepper {
    /// One step on the step's input tokens.
    fn step(&mut self, tokens: &[i32]) -> gpu::Result<()>;
    /// The report, after the last step.
    fn finish(self: Box<Self>) -> gpu::Result<Report>;
}

impl Stepper for step_without_syncs::Decoding<'_> {
    fn step(&mut self, tokens: &[i32]) -> gpu::Result<()> {
        step_without_syncs::Decoding::step(self, tokens)
    }
    fn finish(self: Box<Self>) -> gpu::Result<Report> {
        step_without_syncs::Decoding::finish(*self)
    }
}

/// A `Decoding::new` with the exercise's signature.
pub(super) type New =
    for<'d> fn(&'d Decoder, &Stream, Config) -> gpu::Result<Box<dyn Stepper + 'd>>;

/// The `new` the checks run: the learner's, unless a test of the suite put
/// another in its place.
fn chosen() -> New {
    #[cfg(test)]
    if let Some(other) = super::tests::replacement() {
        return other;
    }
    |decoder, stream, config| {
        Ok(Box::new(step_without_syncs::Decoding::new(
            decoder, stream, config,
        )?))
    }
}

/// The run's inputs and what the decoder predicts from them, on the CPU.
pub(super) struct Workload {
    /// Each step's input tokens, one per request.
    pub(super) inputs: Vec<Vec<i32>>,
    /// The end-of-sequence token: one that some requests, not all, predict.
    pub(super) eos: i32,
    /// Each request's output: its predictions up to its first `eos`.
    pub(super) outputs: Vec<Vec<i32>>,
    /// Requests that predicted `eos` at some step.
    pub(super) finished: usize,
    /// Each step's predictions, one per request.
    pub(super) predicted: Vec<Vec<i32>>,
}

impl Workload {
    /// The reference of a run of the first `steps` steps only: each
    /// request's predictions of those steps up to its first `eos`, and how
    /// many predicted it in them.
    pub(super) fn first(&self, steps: usize) -> Workload {
        let predicted = self.predicted[..steps].to_vec();
        let outputs = (0..BATCH)
            .map(|r| {
                let mut out = Vec::new();
                for p in &predicted {
                    out.push(p[r]);
                    if p[r] == self.eos {
                        break;
                    }
                }
                out
            })
            .collect();
        Workload {
            inputs: self.inputs[..steps].to_vec(),
            eos: self.eos,
            outputs,
            finished: (0..BATCH)
                .filter(|&r| predicted.iter().any(|p| p[r] == self.eos))
                .count(),
            predicted,
        }
    }
}

/// The inputs drawn from `seed`, and an `eos` that the most requests
/// predict at some step, all but at least one.
fn workload(decoder: &Decoder, seed: u64) -> Workload {
    let inputs: Vec<Vec<i32>> = (0..STEPS as u64)
        .map(|t| {
            (0..BATCH as u64)
                .map(|r| {
                    ((seed ^ (t * 7919 + r * 104_729)).wrapping_mul(2_654_435_761) >> 7) as i32
                })
                .map(|x| x.rem_euclid(VOCAB as i32))
                .collect()
        })
        .collect();
    let predicted: Vec<Vec<i32>> = inputs.iter().map(|i| decoder.reference_step(i)).collect();
    let finishers = |eos: i32| {
        (0..BATCH)
            .filter(|&r| predicted.iter().any(|p| p[r] == eos))
            .count()
    };
    let eos = (0..VOCAB as i32)
        .filter(|&e| finishers(e) < BATCH)
        .max_by_key(|&e| (finishers(e), -e))
        .unwrap_or(0);
    let outputs = (0..BATCH)
        .map(|r| {
            let mut out = Vec::new();
            for p in &predicted {
                out.push(p[r]);
                if p[r] == eos {
                    break;
                }
            }
            out
        })
        .collect();
    Workload {
        finished: finishers(eos),
        inputs,
        eos,
        outputs,
        predicted,
    }
}

/// One run of the learner's decoding.
pub(super) struct Run {
    /// The device, whose trace holds the run.
    pub(super) device: Device,
    /// The inputs and the reference.
    pub(super) workload: Workload,
    /// The decoder, for a check's own what-ifs on its CPU twin.
    pub(super) decoder: Decoder,
    /// What `finish` reported.
    pub(super) report: Report,
    /// The races the race checker found during the run.
    pub(super) races: Vec<RaceReport>,
    /// The trace of each step.
    pub(super) steps: Vec<Vec<TraceEntry>>,
    /// The trace of `finish`.
    pub(super) finish: Vec<TraceEntry>,
    /// The CPU clock (ns) when the first step was called, the spin queued.
    pub(super) began: u64,
    /// The CPU clock (ns) when the last step returned.
    pub(super) returned: u64,
}

/// Sets up the device, the decoder (warmed up by one step) and the
/// workload, makes the learner's decoding, queues [`GATE`] on its stream,
/// runs [`STEPS`] steps with each one's trace marked, then calls `finish`.
pub(super) fn run(ctx: &Ctx) -> Result<Run, Failure> {
    run_steps(ctx, STEPS)
}

/// [`run`], but `finish` is called after the first `steps` steps of the
/// workload (`max_steps` is still [`STEPS`]); the run's workload is the
/// reference of those steps.
pub(super) fn run_steps(ctx: &Ctx, steps: usize) -> Result<Run, Failure> {
    let device = ctx.device()?;
    let stream = device.new_stream()?;
    let config = DecoderConfig {
        vocab: VOCAB,
        hidden: 32,
        seed: ctx.seed_for(116),
        step_time: GPU_STEP,
    };
    let decoder = Decoder::new(&stream, config)?;
    let workload = workload(&decoder, ctx.seed_for(116)).first(steps);
    // A real GPU may load a kernel at its first launch: not in the run.
    let warm = stream.alloc_zeros::<i32>(2)?;
    stream.decode_step(&decoder, warm.slice(0..1), warm.slice(1..2))?;
    stream.synchronize()?;
    drop(warm);
    device.clear_trace();
    let config = Config {
        batch: BATCH,
        max_steps: STEPS,
        eos: workload.eos,
    };
    let mut decoding = chosen()(&decoder, &stream, config).map_err(|e| call_failed("new", e))?;
    stream.spin(GATE)?;
    let began = device.now().as_nanos() as u64;
    let mut marks = Vec::with_capacity(STEPS + 1);
    for (t, tokens) in workload.inputs.iter().enumerate() {
        marks.push(device.trace_mark());
        decoding
            .step(tokens)
            .map_err(|e| call_failed(&format!("step {t}"), e))?;
    }
    let returned = device.now().as_nanos() as u64;
    marks.push(device.trace_mark());
    let report = decoding.finish().map_err(|e| call_failed("finish", e))?;
    marks.push(device.trace_mark());
    device.synchronize()?;
    let races = device.take_races();
    let trace = device.trace();
    let mut steps: Vec<Vec<TraceEntry>> = marks
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
    let finish = steps.pop().unwrap_or_default();
    Ok(Run {
        device,
        workload,
        decoder,
        report,
        races,
        steps,
        finish,
        began,
        returned,
    })
}

/// A call of the learner's (`new`, `step 3`, `finish`) that returned an
/// error.
fn call_failed(call: &str, e: GpuError) -> Failure {
    Failure::new(
        format!("`{call}` to succeed"),
        format!("`{call}` failed: {e}"),
    )
}

/// One trace entry for a person: what and where.
pub(super) fn describe(e: &TraceEntry) -> String {
    format!("`{}` at {}", e.name, e.site)
}

/// The line to name for `e` and the call in words: its own, or for the
/// drop of a pinned buffer (which has no line of its own) the line that
/// allocated it, among the step's calls `before` it.
pub(super) fn located(before: &[TraceEntry], e: &TraceEntry) -> (CallSite, String) {
    let alloc = before
        .iter()
        .rev()
        .find(|a| a.op == OpKind::AllocPinned && a.bytes == e.bytes);
    match alloc {
        Some(a) if e.op == OpKind::FreePinned && e.site.line == 0 => (
            a.site,
            format!(
                "`cuMemFreeHost`, the drop of the pinned buffer allocated at {}",
                a.site
            ),
        ),
        _ => (e.site, describe(e)),
    }
}

/// In how many of the run's steps a call of the kind `same` was made.
pub(super) fn steps_with(run: &Run, same: impl Fn(&TraceEntry) -> bool) -> usize {
    run.steps.iter().filter(|s| s.iter().any(&same)).count()
}

/// `ns` nanoseconds in milliseconds, for a person.
pub(super) fn ms(ns: u64) -> String {
    format!("{:.1} ms", ns as f64 / 1e6)
}
