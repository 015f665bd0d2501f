//! The judge's workload and one measurement of it.
//!
//! Each run of the workload is a `spin` of a length the judge chose, then
//! some CPU work, so the judge knows the GPU time of every call: about
//! [`RUN`] for most (within half a percent), [`COLD`] for the first call of all (a cold start), [`SLOW`] for one
//! timed run ([`SLOW_AT`]: another job on the GPU). [`measured`] hands the
//! workload to the learner's `measure` and keeps what the checks look at:
//! the timing, and the trace marks around each call.

use gpu::{Device, OpKind, Stream, StreamId, Trace};
use judge_harness::{Ctx, Failure};
use std::time::Duration;
use time_it::{Matmul, Plan, Timing};

/// The plan the judge asks for.
pub(crate) const PLAN: Plan = Plan { warmup: 2, reps: 9 };
/// The work of one run: a 4096³ matmul.
pub(crate) const WORK: Matmul = Matmul {
    m: 4096,
    n: 4096,
    k: 4096,
};
/// The GPU time of a run.
pub(crate) const RUN: Duration = Duration::from_millis(5);
/// The GPU time of the first call of all.
pub(crate) const COLD: Duration = Duration::from_millis(25);
/// The GPU time of the slow timed run.
pub(crate) const SLOW: Duration = Duration::from_millis(15);
/// The call that is slow: the third timed run, when the warm-up is done.
pub(crate) const SLOW_AT: usize = PLAN.warmup + 2;
/// The CPU work of each run, after its launch.
pub(crate) const HOST: Duration = Duration::from_millis(1);
/// How far a figure may be from the truth.
pub(crate) const TOLERANCE: f64 = 0.02;

/// A measuring function: the learner's `measure`.
pub(crate) type Measure =
    fn(&Stream, Plan, Matmul, &mut dyn FnMut(&Stream) -> gpu::Result<()>) -> gpu::Result<Timing>;

/// Milliseconds in `d`.
pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// How much each ordinary call's GPU time differs from [`RUN`], by call
/// index: at most half a percent either way, as the runs of a real matmul
/// do. So the runs are not all equal, and only the middle sample is the
/// median (the second smallest, say, is not).
const JITTER: [f64; 11] = [
    0.0, 0.004, -0.003, 0.002, -0.005, 0.003, -0.002, 0.005, -0.004, 0.001, -0.001,
];

/// The GPU time of call `i` of the workload, in milliseconds.
pub(crate) fn truth_ms(i: usize) -> f64 {
    match i {
        0 => ms(COLD),
        SLOW_AT => ms(SLOW),
        _ => ms(RUN) * (1.0 + JITTER[i % JITTER.len()]),
    }
}

/// The GPU times the timed runs took when the plan is followed.
pub(crate) fn timed_truth_ms() -> Vec<f64> {
    (PLAN.warmup..PLAN.warmup + PLAN.reps)
        .map(truth_ms)
        .collect()
}

/// Whether `value` is within [`TOLERANCE`] of `truth`.
pub(crate) fn close(value: f64, truth: f64) -> bool {
    (value - truth).abs() <= truth * TOLERANCE
}

/// One measurement of the workload.
pub(crate) struct Measured {
    /// The device it ran on.
    pub(crate) device: Device,
    /// What the measuring function reported.
    pub(crate) timing: Timing,
    /// For each call of the workload: the trace marks before and after it.
    pub(crate) calls: Vec<(u64, u64)>,
    /// The first call of the workload on a stream other than the one
    /// `measure` was given, if any.
    pub(crate) elsewhere: Option<usize>,
    /// The stream `measure` was given.
    pub(crate) stream: StreamId,
}

impl Measured {
    /// The device's trace.
    pub(crate) fn trace(&self) -> Trace {
        self.device.trace()
    }

    /// The stream the timing events were recorded on, when events were
    /// recorded and none of them on the stream the runs ran on.
    pub(crate) fn events_elsewhere(&self) -> Option<StreamId> {
        let recorded_on: Vec<StreamId> = self
            .trace()
            .entries
            .iter()
            .filter(|e| e.op == OpKind::EventRecord)
            .filter_map(|e| e.stream)
            .collect();
        let first = *recorded_on.first()?;
        (!recorded_on.contains(&self.stream)).then_some(first)
    }
}

/// Measures the workload with the learner's `measure`: what every check does.
pub(crate) fn measured(ctx: &Ctx) -> Result<Measured, Failure> {
    measure_with(ctx, chosen())
}

/// The measuring function the checks use: the learner's `measure`, unless a
/// test of the suite put another in its place (to show that the CPU-clock
/// way passes too, say).
fn chosen() -> Measure {
    #[cfg(test)]
    if let Some(other) = super::tests::replacement() {
        return other;
    }
    time_it::measure
}

/// Measures the workload with `measure` on a device of the judge's backend.
pub(crate) fn measure_with(ctx: &Ctx, measure: Measure) -> Result<Measured, Failure> {
    measure_as(ctx, measure, PLAN, WORK)
}

/// Measures the workload with the learner's `measure`, asking for `plan`
/// and telling it `work`: what the checks of other plans and shapes do.
pub(crate) fn measured_as(ctx: &Ctx, plan: Plan, work: Matmul) -> Result<Measured, Failure> {
    measure_as(ctx, chosen(), plan, work)
}

/// [`measure_with`], with `plan` and `work`.
fn measure_as(ctx: &Ctx, measure: Measure, plan: Plan, work: Matmul) -> Result<Measured, Failure> {
    let device = ctx.device()?;
    let stream = device.new_stream()?;
    let (mut calls, mut streams) = (Vec::new(), Vec::new());
    let mut run = |s: &Stream| -> gpu::Result<()> {
        let start = device.trace_mark();
        let gpu_time = Duration::from_secs_f64(truth_ms(calls.len()) / 1e3);
        s.spin(gpu_time)?;
        device.host_work(HOST);
        calls.push((start, device.trace_mark()));
        streams.push(s.id());
        Ok(())
    };
    let timing = measure(&stream, plan, work, &mut run)
        .map_err(|e| Failure::new("`measure` to succeed", e.to_string()))?;
    device.synchronize()?;
    let elsewhere = streams.iter().position(|&s| s != stream.id());
    Ok(Measured {
        device,
        timing,
        calls,
        elsewhere,
        stream: stream.id(),
    })
}
