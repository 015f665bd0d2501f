//! The GPU side: what one kernel costs the GPU, timed on the GPU with the
//! kernels back to back, so that no gap between two launches is counted.

use super::support::{
    FACTOR, Measured, PLAN, SECTION, Size, close, describe_wait, judged, near, per_size, us,
};
use gpu::OpKind;
use judge_harness::{Ctx, Failure};

pub(super) fn the_gpu_time_is_one_kernel(ctx: &Ctx) -> Result<(), Failure> {
    judged(ctx, one_kernel)
}

/// The verdict on one measurement.
fn one_kernel(measurement: &Measured) -> Result<(), Failure> {
    let sizes = &measurement.sizes;
    let Some(size) = sizes
        .iter()
        .find(|s| !close(s.profile.gpu_us, s.reference.gpu_us))
    else {
        return Ok(());
    };
    let expected = format!(
        "for each kernel size, the GPU time of one kernel within a factor of {FACTOR} of the judge's measurement: {}",
        per_size(sizes, |s| s.reference.gpu_us)
    );
    let actual = format!(
        "{}: {} for one kernel; yours: {}",
        size.name(),
        us(size.profile.gpu_us),
        per_size(sizes, |s| s.profile.gpu_us)
    );
    let failure = Failure::new(expected, actual);
    let failure = match measurement.wait_in_the_loop(size) {
        Some(wait) if measurement.recorded_events(size) => failure.at(wait.site),
        _ => failure,
    };
    Err(failure.detail(format!("{}; {SECTION}", why(measurement, size))))
}

/// Why the GPU time of one kernel of `size` is not what the judge measured.
fn why(measurement: &Measured, size: &Size) -> String {
    let (gpu, truth) = (size.profile.gpu_us, size.reference.gpu_us);
    let launch = size.reference.cpu_us;
    if !measurement.recorded_events(size) {
        return format!(
            "no event was recorded: the GPU was timed on the CPU's clock, which sees when the CPU queued the kernels and when it heard they were done, not when the GPU ran them; {} is a kernel plus what the CPU spent around it (a launch is {}); record a pair of events on the stream around the kernels and read `elapsed_ms`",
            us(gpu),
            us(launch)
        );
    }
    if let Some(other) = measurement.events_elsewhere(size) {
        return format!(
            "the events were recorded on stream {other}, and the kernels ran on stream {}: an event completes when its own stream reaches it, and stream {other} has nothing queued, so the pair measured the CPU's time between the two records, not the kernels; record the events on the stream `profile` is given",
            measurement.stream
        );
    }
    if let Some(wait) = measurement.wait_in_the_loop(size) {
        return format!(
            "{} can make the CPU wait inside the timed loop: after each wait the GPU idles while the CPU queues the next kernel, and the events time that idle too; queue every launch, then wait once",
            describe_wait(&wait)
        );
    }
    if starts_before_the_gate(measurement, size) {
        return format!(
            "the start event was recorded before the kernel queued ahead of the loop, so the pair timed that kernel too ({} over {} kernels); record the start event after it, just before the timed launches",
            us((gpu - truth) * PLAN.launches as f64),
            PLAN.launches
        );
    }
    let n = PLAN.launches as f64;
    if near(gpu, truth * n) {
        return format!(
            "{} is the GPU time of all {} kernels: divide `elapsed_ms` of the pair around the loop by `plan.launches`",
            us(gpu),
            PLAN.launches
        );
    }
    if near(gpu, truth / n) {
        return format!(
            "{} is one kernel's time divided by {} once more: `elapsed_ms` of one pair around the loop is the time of all {} kernels, divided once by `plan.launches`",
            us(gpu),
            PLAN.launches,
            PLAN.launches
        );
    }
    if near(gpu, truth / 1e3) || near(gpu, truth * 1e3) {
        return format!(
            "{} is a kernel's time in the wrong unit ({} is a kernel's): `elapsed_ms` is in milliseconds, and `gpu_us` in microseconds (× 1e3)",
            us(gpu),
            us(truth)
        );
    }
    // Gaps between kernels are the learner's launches as the trace saw
    // them, which on a GPU include each call's way from the learner's
    // process to the judge's.
    let seen = measurement.launch_us(size);
    if gpu > truth && gpu <= seen * FACTOR {
        let how = if measurement.gated(size) {
            "the kernel queued ahead of the loop ended before the CPU had queued the timed launches, so the GPU caught up and then ran each kernel as it was launched; make it longer than the launches take to queue (a launch is a few µs: 50 µs per launch is ample)"
        } else {
            "the GPU ran each kernel as it was launched and idled until the next launch, and the events timed those gaps: a launch-bound loop's events measure the launches; queue the timed launches behind a long kernel (a `spin` longer than the launches take to queue) so that they run back to back"
        };
        return format!(
            "{} is about a launch's CPU time ({}), not a kernel's ({}): {how}",
            us(gpu),
            us(seen),
            us(truth)
        );
    }
    "the GPU time of one kernel is `elapsed_ms` of a pair of events around the timed kernels on their stream, the kernels back to back, over `plan.launches`".to_string()
}

/// Whether the first event the learner's `profile` of `size` recorded came
/// before a kernel of its own that it queued ahead of the timed launches.
fn starts_before_the_gate(measurement: &Measured, size: &Size) -> bool {
    let Some(first_timed) = size.timed().first() else {
        return false;
    };
    let entries = measurement.entries(size);
    let launched = |seq: u64| size.calls.iter().any(|c| seq >= c.0 && seq < c.1);
    let start = entries.iter().find(|e| e.op == OpKind::EventRecord);
    let gate = entries
        .iter()
        .rfind(|e| e.seq < first_timed.0 && e.op == OpKind::Launch && !launched(e.seq));
    matches!((start, gate), (Some(start), Some(gate)) if start.seq < gate.seq)
}
