//! The judge's decode step and one submission of it.
//!
//! Each step is [`HOST`] of CPU work, then [`KERNELS`] kernels of [`KERNEL`]
//! each: the GPU takes longer per step than the CPU, so a loop that never
//! waits runs ahead without bound, and the GPU's clock shows any idle time
//! between two steps. [`submitted`] hands the step to the learner's
//! `submit` and keeps what the checks look at: for each step, when the CPU
//! queued it and when the GPU ran it.

use gpu::{Device, OpKind, Stream, StreamId, Trace, TraceEntry};
use judge_harness::{Ctx, Failure};
use std::time::Duration;

/// How many steps the judge submits.
pub(crate) const STEPS: usize = 12;
/// How many steps may be in flight.
pub(crate) const DEPTH: usize = 3;
/// The kernels each step queues.
pub(crate) const KERNELS: usize = 2;
/// The GPU time of each kernel.
pub(crate) const KERNEL: Duration = Duration::from_millis(2);
/// The CPU work of each step, before its kernels.
pub(crate) const HOST: Duration = Duration::from_millis(1);
/// The longest the GPU may sit between two steps and still count as fed.
pub(crate) const IDLE_NS: u64 = 100_000;

/// A submitting function: the learner's `submit`.
pub(crate) type Submit =
    fn(&Stream, usize, usize, &mut dyn FnMut(&Stream, usize) -> gpu::Result<()>) -> gpu::Result<()>;

/// One call of the step by the learner's code.
pub(crate) struct Step {
    /// The index it was called with.
    pub(crate) k: usize,
    /// The stream it was called on.
    pub(crate) stream: StreamId,
    /// The trace marks before and after it.
    pub(crate) marks: (u64, u64),
    /// When the CPU queued its first kernel.
    pub(crate) queued_ns: u64,
    /// When the GPU began its first kernel and ended its last.
    pub(crate) gpu_ns: (u64, u64),
}

/// One submission of the judge's steps.
pub(crate) struct Submitted {
    /// The device it ran on.
    pub(crate) device: Device,
    /// The stream `submit` was given.
    pub(crate) stream: StreamId,
    /// How many steps were asked for, and the depth.
    pub(crate) asked: (usize, usize),
    /// Each call of the step, in the order made.
    pub(crate) steps: Vec<Step>,
    /// The trace marks before and after `submit`.
    pub(crate) marks: (u64, u64),
    /// The CPU clock when `submit` returned.
    pub(crate) returned_ns: u64,
}

impl Submitted {
    /// The device's trace.
    pub(crate) fn trace(&self) -> Trace {
        self.device.trace()
    }

    /// The calls that can make the CPU wait, made by `submit` itself
    /// between trace marks `from` and `to`.
    pub(crate) fn waits(&self, from: u64, to: u64) -> Vec<TraceEntry> {
        self.trace()
            .since(from)
            .iter()
            .take_while(|e| e.seq < to)
            .filter(|e| e.blocking.is_some())
            .cloned()
            .collect()
    }
}

/// Submits the judge's steps with the learner's `submit`, `steps` of them
/// at `depth`.
pub(crate) fn submitted(ctx: &Ctx, steps: usize, depth: usize) -> Result<Submitted, Failure> {
    submit_with(ctx, chosen(), steps, depth)
}

/// The submitting function the checks use: the learner's `submit`, unless
/// a test of the suite put another in its place.
fn chosen() -> Submit {
    #[cfg(test)]
    if let Some(other) = super::tests::replacement() {
        return other;
    }
    backpressure::submit
}

/// Submits the judge's steps with `submit` on a device of the judge's backend.
pub(crate) fn submit_with(
    ctx: &Ctx,
    submit: Submit,
    steps: usize,
    depth: usize,
) -> Result<Submitted, Failure> {
    let asked = (steps, depth);
    // Each step's GPU start and end are what the checks read: a real GPU
    // times every operation with events.
    let device = ctx.timed_device()?;
    let stream = device.new_stream()?;
    let mut calls: Vec<(usize, StreamId, u64, u64)> = Vec::new();
    let mut step = |s: &Stream, k: usize| -> gpu::Result<()> {
        let start = device.trace_mark();
        device.host_work(HOST);
        for _ in 0..KERNELS {
            s.spin(KERNEL)?;
        }
        calls.push((k, s.id(), start, device.trace_mark()));
        Ok(())
    };
    let before = device.trace_mark();
    submit(&stream, steps, depth, &mut step)
        .map_err(|e| Failure::new("`submit` to succeed", e.to_string()))?;
    let returned_ns = device.now().as_nanos() as u64;
    let after = device.trace_mark();
    device.synchronize()?;
    let trace = device.trace();
    let steps = calls
        .into_iter()
        .map(|(k, stream, from, to)| {
            let launches: Vec<&TraceEntry> = trace
                .since(from)
                .iter()
                .take_while(|e| e.seq < to)
                .filter(|e| e.op == OpKind::Launch)
                .collect();
            let gpu = |pick: fn(&gpu::GpuSpan) -> u64| {
                launches
                    .iter()
                    .filter_map(move |e| e.gpu.as_ref().map(pick))
            };
            Step {
                k,
                stream,
                marks: (from, to),
                queued_ns: launches.first().map_or(0, |e| e.cpu_start_ns),
                gpu_ns: (
                    gpu(|s| s.start_ns).min().unwrap_or(0),
                    gpu(|s| s.end_ns).max().unwrap_or(0),
                ),
            }
        })
        .collect();
    Ok(Submitted {
        device,
        stream: stream.id(),
        asked,
        steps,
        marks: (before, after),
        returned_ns,
    })
}

/// Why the events `submit` recorded cannot bound the steps, when the trace
/// shows it: an event recorded on another stream than the steps', or each
/// event recorded before its step (one before step 0, none after the last).
pub(crate) fn misplaced_events(submission: &Submitted) -> Option<String> {
    let trace = submission.trace();
    let records: Vec<&TraceEntry> = trace
        .since(submission.marks.0)
        .iter()
        .take_while(|e| e.seq < submission.marks.1)
        .filter(|e| e.op == OpKind::EventRecord)
        .collect();
    if let Some(r) = records.iter().find(|r| r.stream != Some(submission.stream)) {
        return Some(format!(
            "the events were recorded on another stream than the steps' (`{}` at {} on stream {}, the steps on stream {}): an event completes when its own stream reaches it, and a stream with nothing queued reaches it at once, so waiting for it bounds nothing. Record each step's event on the stream given, `stream.record_event()?`, after `step(stream, k)`",
            r.name,
            r.site,
            r.stream.map_or("?".into(), |s| s.to_string()),
            submission.stream
        ));
    }
    let (first, last) = (submission.steps.first()?, submission.steps.last()?);
    let before = records.iter().find(|r| r.seq < first.marks.0);
    if let Some(r) = before
        && !records.iter().any(|r| r.seq > last.marks.1)
    {
        return Some(format!(
            "an event was recorded at {} before step 0 was queued, and none after the last step: each event was recorded before its step, so it marks the end of the step before it (an event completes once the work queued before it is done). Waiting for it lets one more step into flight, and the wait at the end returns before the last step has run; record each step's event after `step(stream, k)`",
            r.site
        ));
    }
    None
}

/// The first wait of the loop queued after a step and before that step's
/// event, with the step's index: the loop waits after queuing step k, not
/// before.
pub(crate) fn wait_after_its_step(submission: &Submitted) -> Option<(TraceEntry, usize)> {
    let trace = submission.trace();
    submission.steps.iter().enumerate().find_map(|(i, step)| {
        let end = submission
            .steps
            .get(i + 1)
            .map_or(submission.marks.1, |next| next.marks.0);
        let gap: Vec<&TraceEntry> = trace
            .since(step.marks.1)
            .iter()
            .take_while(|e| e.seq < end)
            .collect();
        let wait = gap.iter().position(|e| e.blocking.is_some())?;
        let record = gap.iter().position(|e| e.op == OpKind::EventRecord)?;
        (wait < record).then(|| (gap[wait].clone(), step.k))
    })
}
