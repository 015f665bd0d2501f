//! Timed with events, each timed run has a pair of its own: a start event
//! recorded right before it and an end event right after it. A run timed
//! from the event that ended the run before it gets the right number only
//! while the GPU never idles between runs; the judge's workload keeps the
//! GPU busy (its CPU work is shorter than its GPU work), so the samples
//! alone cannot show it, but the events recorded for the timed runs do.

use super::workload::{PLAN, measured};
use gpu::OpKind;
use judge_harness::{Ctx, Failure};

pub(super) fn each_timed_run_has_a_pair_of_its_own(ctx: &Ctx) -> Result<(), Failure> {
    let measurement = measured(ctx)?;
    let calls = &measurement.calls;
    let trace = measurement.trace();
    // From the end of the last untimed run (the first start event comes
    // after it) to the end of the trace: the runs before the last
    // `PLAN.reps`, however many warm-up runs there were (the warm-up check
    // tells a wrong number of them).
    let untimed = calls.len().saturating_sub(PLAN.reps);
    let from = match untimed.checked_sub(1).and_then(|i| calls.get(i)) {
        Some(&(_, end)) => end,
        None => 0,
    };
    let timed = trace.since(from);
    // The CPU-clock way records no event.
    if !timed.iter().any(|e| e.op == OpKind::EventElapsed) {
        return Ok(());
    }
    let records = timed.iter().filter(|e| e.op == OpKind::EventRecord).count();
    let needed = 2 * PLAN.reps;
    if records >= needed {
        return Ok(());
    }
    let first = timed
        .iter()
        .find(|e| e.op == OpKind::EventRecord)
        .map(|e| e.site);
    let failure = Failure::new(
        format!(
            "a pair of events of its own around each of the {} timed runs: {needed} events recorded",
            PLAN.reps
        ),
        format!(
            "{records} events recorded for the {} timed runs, and every sample is right: each run is timed from the event that ended the run before it",
            PLAN.reps
        ),
    )
    .detail(
        "that event is the run's start only while the GPU never idles between runs; in a real loop the CPU often takes longer between runs than the GPU does (scheduling, a Python step, a sleep), the GPU drains, and the gap lands in the next sample; record a start event right before each run and an end event right after it, and time each run by its own pair; see cpu-and-gpu.md#timing-gpu-work",
    );
    Err(match first {
        Some(site) => failure.at(site),
        None => failure,
    })
}
