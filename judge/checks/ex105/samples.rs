//! The warm-up and the samples: one per timed run, each the GPU time of its
//! run, told apart from the ways a measurement goes wrong.

use super::workload::{
    COLD, HOST, Measured, PLAN, WORK, close, measured, measured_as, ms, timed_truth_ms, truth_ms,
};
use gpu::OpKind;
use judge_harness::bridge::unless_it_panics;
use judge_harness::{Ctx, Failure};
use time_it::Plan;

/// Where the rules are.
const SECTION: &str = "see cpu-and-gpu.md#timing-gpu-work";

pub(super) fn warms_up_first(ctx: &Ctx) -> Result<(), Failure> {
    let measurement = measured(ctx)?;
    let (calls, expected) = (measurement.calls.len(), PLAN.warmup + PLAN.reps);
    if calls != expected {
        let timed = measurement.timing.samples_ms.len();
        let what = match calls {
            n if n == PLAN.reps => "the timed runs only: no warm-up".to_string(),
            n if n < expected && timed == PLAN.reps => format!(
                "{} untimed run(s) before the {timed} timed ones, where the plan asks for {}: the warm-up loop runs {} time(s) too few (a range such as `1..plan.warmup` runs `plan.warmup - 1` times; loop over `0..plan.warmup`)",
                n - timed,
                PLAN.warmup,
                expected - n
            ),
            n if n < expected => "fewer runs than the plan asks for".to_string(),
            _ => "more runs than the plan asks for".to_string(),
        };
        return Err(Failure::new(
            format!(
                "{} untimed runs of the workload, then {} timed ones: {expected} calls",
                PLAN.warmup, PLAN.reps
            ),
            format!("{calls} calls, {what}"),
        )
        .detail(format!(
            "the first runs of a program pay one-time costs (module loading, the allocator's first segments); warm up first: run the workload `plan.warmup` times before timing anything; {SECTION}"
        )));
    }
    if let Some(call) = measurement.elsewhere {
        let what = match call < PLAN.warmup {
            true => "a warm-up run",
            false => "a timed run",
        };
        return Err(Failure::new(
            "every run queued on the stream `measure` is given",
            format!("call {call} of the workload, {what}, was queued on another stream"),
        )
        .detail(format!(
            "two streams are not ordered: a warm-up on a stream of its own may still be running (the cold start with it) while the first timed runs run, sharing the GPU with them, and it does not warm the stream that is timed; run every call on the stream you were given, so that stream order puts the warm-up before the first start event; {SECTION}"
        )));
    }
    let samples = &measurement.timing.samples_ms;
    if let Some(i) = samples.iter().position(|&s| close(s, ms(COLD))) {
        return Err(Failure::new(
            format!("no sample of the cold first call ({:.1} ms)", ms(COLD)),
            format!(
                "sample {i} is {:.3} ms: the first call of all was timed",
                samples[i]
            ),
        )
        .detail(format!(
            "warm up first: the `plan.warmup` runs come before the first timed run and are not timed; {SECTION}"
        )));
    }
    Ok(())
}

pub(super) fn each_run_is_one_sample(ctx: &Ctx) -> Result<(), Failure> {
    let measurement = measured(ctx)?;
    ctx.save_timeline(&measurement.device);
    let truth = timed_truth_ms();
    let samples = &measurement.timing.samples_ms;
    let expected = format!(
        "{} samples, one per timed run, each within 2% of its run's GPU time ({})",
        PLAN.reps,
        list(&truth)
    );
    if samples.len() != PLAN.reps {
        let dropped_first = samples.len() + 1 == PLAN.reps
            && samples.iter().zip(&truth[1..]).all(|(&s, &t)| close(s, t));
        let why = match samples.len() {
            1 => {
                "one time for every run together: a median needs one sample per run (record a pair of events per run)"
            }
            _ if dropped_first => {
                "the first timed run has no sample: these are the samples of runs 2 to the last; the warm-up already absorbs the cold start, so every timed run, the first included, gives one sample"
            }
            _ => "each timed run gives exactly one sample, in the order they ran",
        };
        return Err(Failure::new(expected, format!("{} samples", samples.len()))
            .detail(format!("{why}; {SECTION}")));
    }
    let Some(i) = (0..truth.len()).find(|&i| !close(samples[i], truth[i])) else {
        return Ok(());
    };
    let actual = format!(
        "sample {i} is {:.3} ms where the GPU spent {:.3} ms on that run ({})",
        samples[i],
        truth[i],
        list(samples)
    );
    Err(Failure::new(expected, actual).detail(format!("{}; {SECTION}", why(&measurement, i))))
}

/// Samples of about 0 ms, each under 1% of its run's GPU time, with no
/// event recorded: a clock that does not see the virtual GPU's time (a
/// host clock, which on a real GPU would have read the runs).
fn host_clock_outside_the_model(measurement: &Measured, truth: &[f64]) -> Option<String> {
    let samples = &measurement.timing.samples_ms;
    let tiny = !samples.is_empty() && samples.iter().zip(truth).all(|(&s, &t)| s.abs() < t * 0.01);
    let events = measurement
        .trace()
        .entries
        .iter()
        .any(|e| e.op == OpKind::EventRecord);
    if !tiny || events {
        return None;
    }
    let longest = samples.iter().copied().fold(0.0, f64::max);
    let mean = truth.iter().sum::<f64>() / truth.len() as f64;
    Some(format!(
        "every sample is about 0 ms ({longest:.4} ms at most), though each run keeps the GPU busy for about {mean:.1} ms, and no event was recorded: the samples come from a clock that does not see the GPU's work. On the virtual GPU, GPU time passes only inside the `gpu` crate's calls, so a host clock such as `std::time::Instant` reads almost nothing around a run, even across a `synchronize`; time each run with a pair of events on its stream (`record_event`, then `elapsed_ms`), which read the device's own clock on any device"
    ))
}

/// Why sample `i` is not its run's GPU time, as far as the numbers tell.
fn why(measurement: &Measured, i: usize) -> String {
    let samples = &measurement.timing.samples_ms;
    let truth = timed_truth_ms();
    let sample = samples[i];
    if let Some(other) = measurement.events_elsewhere() {
        return format!(
            "the events were recorded on stream {other}, and the runs ran on stream {}: an event completes when its own stream reaches it, and stream {other} has no work to wait for, so each pair completes as soon as it is recorded and measures the CPU's time between the two records (the submission, {sample:.3} ms), nothing of the run; record the events on the stream the work runs on, the one `measure` is given",
            measurement.stream
        );
    }
    if let Some(why) = host_clock_outside_the_model(measurement, &truth) {
        return why;
    }
    if let Some(cpu) = cpu_ms(measurement, PLAN.warmup + i)
        && (sample - cpu).abs() <= cpu * 0.25
    {
        return format!(
            "a CPU clock measured the submission: {sample:.3} ms is how long the CPU took to queue the run (its launch and its {:.1} ms of CPU work), not the GPU's time; synchronize the stream before starting the clock and after the run, or time the run with events",
            ms(HOST)
        );
    }
    let mean = truth.iter().sum::<f64>() / truth.len() as f64;
    let flat = samples
        .iter()
        .all(|&s| (s - sample).abs() <= sample * 0.005);
    if flat && close(sample, mean) {
        return format!(
            "every sample is {sample:.3} ms, the mean of the runs: one pair of events (or one clock) around every run, divided by their number, gives their mean; record a pair of events around each run, and a median exists"
        );
    }
    if let Some(last) = truth.last().filter(|&&last| flat && close(sample, last)) {
        return format!(
            "every sample is {sample:.3} ms, the last run's GPU time ({last:.3} ms): one pair of events recorded again around each run moves the pair to that run, so read after the loop every sample is the last run's; record a new pair of events for each run and keep them all"
        );
    }
    if samples
        .iter()
        .zip(&truth)
        .all(|(&s, &t)| close(s + ms(HOST), t))
    {
        return format!(
            "each sample is about {:.1} ms (the run's CPU work) short of its run's GPU time: the clock started only after `run` returned, and the GPU had been running the work since its launch, while the CPU did the run's own CPU work; start the clock before calling `run` (on an idle stream), or record the start event before it",
            ms(HOST)
        );
    }
    if (0..samples.len()).all(|j| close(samples[j], truth_ms(j))) {
        return format!(
            "these are the workload's calls 0 to {}: the warm-up runs were timed, and sample 0 is the cold first call ({:.1} ms); warm up first",
            samples.len() - 1,
            ms(COLD)
        );
    }
    if sample > truth[i] {
        return format!(
            "the run's sample also holds {:.3} ms of earlier work: the clock started while the GPU was still busy (with the warm-up, or the run before); synchronize before starting a CPU clock, or time with events on the stream",
            sample - truth[i]
        );
    }
    let mut sorted_truth = truth.clone();
    sorted_truth.sort_by(f64::total_cmp);
    let ascending = samples.windows(2).all(|w| w[0] <= w[1]);
    if ascending
        && samples
            .iter()
            .zip(&sorted_truth)
            .all(|(&s, &t)| close(s, t))
    {
        let slow = truth.iter().copied().fold(0.0, f64::max);
        let ran = truth.iter().position(|&t| t == slow).unwrap_or(0);
        return format!(
            "your samples are the runs' GPU times in ascending order, not in the order the runs ran (the {slow:.1} ms run was run {ran}, its sample is the last): the samples were sorted, in place, to find the median; sort a copy for the median and return the samples in run order"
        );
    }
    "each sample is the GPU time of one run: from an event recorded before it to one recorded after it, on the stream the work runs on".into()
}

/// The CPU time call `call` of the workload took, from the trace: its launch
/// and its CPU work.
fn cpu_ms(measurement: &Measured, call: usize) -> Option<f64> {
    let &(start, end) = measurement.calls.get(call)?;
    let trace = measurement.trace();
    let entries: Vec<_> = trace
        .since(start)
        .iter()
        .take_while(|e| e.seq < end)
        .collect();
    let (first, last) = (entries.first()?, entries.last()?);
    Some((last.cpu_end_ns - first.cpu_start_ns) as f64 / 1e6)
}

/// Milliseconds, as a short list.
pub(super) fn list(values: &[f64]) -> String {
    let shown: Vec<String> = values.iter().map(|v| format!("{v:.2}")).collect();
    format!("{} ms", shown.join(", "))
}

/// Plans other than the judge's main one: no warm-up (the first call of
/// all is then the one timed run, cold), and no timed run at all.
pub(super) fn other_plans_are_followed(ctx: &Ctx) -> Result<(), Failure> {
    let one = measured_as(ctx, Plan { warmup: 0, reps: 1 }, WORK)?;
    let asked = "`Plan { warmup: 0, reps: 1 }`: one call of the workload, timed";
    if one.calls.len() != 1 {
        return Err(Failure::new(asked, format!("{} calls", one.calls.len())).detail(format!(
            "`plan.warmup` may be 0, and then no run is untimed: loop `0..plan.warmup` with no minimum, then `0..plan.reps`; {SECTION}"
        )));
    }
    let samples = &one.timing.samples_ms;
    let cold = truth_ms(0);
    if samples.len() != 1 || !close(samples[0], cold) || one.timing.median_ms != samples[0] {
        return Err(Failure::new(
            format!("{asked}: one sample, the GPU time of that run ({cold:.1} ms), which is the median"),
            format!("samples {samples:?}, median {:.3} ms", one.timing.median_ms),
        )
        .detail(format!(
            "with no warm-up the one timed run is the first call of all; its sample is its GPU time, and the median of one sample is that sample; {SECTION}"
        )));
    }
    let asked = "`Plan { warmup: 1, reps: 0 }`: the warm-up only, no sample and a median of 0";
    let none = unless_it_panics(|| measured_as(ctx, Plan { warmup: 1, reps: 0 }, WORK))
        .map_err(|panic| {
            Failure::new(asked, format!("it panicked: {panic}")).detail(format!(
                "a plan may time no run: then there is no sample, and the median of none is 0; take the middle of the sorted samples only when there is one (`sorted.get(len / 2)`), never by indexing an empty list; {SECTION}"
            ))
        })??;
    let (calls, timing) = (none.calls.len(), &none.timing);
    if calls != 1 || !timing.samples_ms.is_empty() || timing.median_ms != 0.0 {
        return Err(Failure::new(
            asked,
            format!(
                "{calls} call(s), samples {:?}, median {:.3} ms",
                timing.samples_ms, timing.median_ms
            ),
        )
        .detail(format!(
            "a plan may time no run: then there is no sample to wait for or to sort, and the median of none is 0; {SECTION}"
        )));
    }
    Ok(())
}
