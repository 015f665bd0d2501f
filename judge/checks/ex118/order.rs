//! Every step once, in order, on the stream given, and all of them
//! finished when `submit` returns.

use super::workload::{DEPTH, IDLE_NS, STEPS, Submitted, misplaced_events, submitted};
use judge_harness::{Ctx, Failure};

pub(super) fn every_step_once_in_order(ctx: &Ctx) -> Result<(), Failure> {
    let submission = submitted(ctx, STEPS, DEPTH)?;
    // The timeline `judge run 118 --timeline` writes: the steps on the
    // stream, the CPU's waits.
    ctx.save_timeline(&submission.device);
    in_order(&submission)?;
    finished_on_return(&submission)
}

/// Fails unless the step was called for `0..steps`, in order, each once,
/// on the stream `submit` was given.
pub(super) fn in_order(submission: &Submitted) -> Result<(), Failure> {
    let (steps, _) = submission.asked;
    let called: Vec<usize> = submission.steps.iter().map(|s| s.k).collect();
    if called != (0..steps).collect::<Vec<_>>() {
        return Err(Failure::new(
            format!("the step called for k = 0, 1, …, {}, in order, each once", steps.saturating_sub(1)),
            format!("the step was called for k = {called:?}"),
        )
        .detail("a decode step depends on the one before (its input is that step's token): call `step(stream, k)` once for each `k` in `0..steps`, in order; see cpu-and-gpu.md#why-the-cpu-ever-waits"));
    }
    if let Some(step) = submission
        .steps
        .iter()
        .find(|s| s.stream != submission.stream)
    {
        return Err(Failure::new(
            "every step queued on the stream `submit` was given",
            format!("step {} was queued on stream {}, not on stream {}", step.k, step.stream, submission.stream),
        )
        .detail("the events that bound the queue are recorded on one stream, and the steps depend on each other: queue every step on the stream given; see cpu-and-gpu.md#why-the-cpu-ever-waits"));
    }
    Ok(())
}

/// Fails unless every step had finished on the GPU when `submit` returned.
pub(super) fn finished_on_return(submission: &Submitted) -> Result<(), Failure> {
    let unfinished: Vec<usize> = submission
        .steps
        .iter()
        .filter(|s| s.gpu_ns.1 > submission.returned_ns)
        .map(|s| s.k)
        .collect();
    let Some(first) = unfinished.first() else {
        return Ok(());
    };
    let rule = "after the last step is queued, wait once, for its event (`last.synchronize()?`) or for the stream: the caller reads the results next";
    let last = submission.steps.last().map_or(0, |s| s.k);
    let at_end = submission
        .steps
        .last()
        .map(|s| submission.waits(s.marks.1, submission.marks.1))
        .unwrap_or_default();
    let why = match (misplaced_events(submission), at_end.last()) {
        (Some(misplaced), _) => misplaced,
        (None, Some(wait)) => {
            let done = submission
                .steps
                .iter()
                .rev()
                .find(|s| s.gpu_ns.1 <= wait.cpu_end_ns + IDLE_NS)
                .map_or("before any step had finished".to_string(), |s| {
                    format!("when step {} had finished", s.k)
                });
            format!(
                "the wait after the last step, `{}` at {}, returned {done}, not step {last}, the last: it waited for an older step's event (the front of the queue is the oldest step in flight); {rule}",
                wait.name, wait.site
            )
        }
        (None, None) => rule.to_string(),
    };
    Err(Failure::new(
        "every step finished on the GPU when `submit` returns",
        format!(
            "`submit` returned with {} steps unfinished, step {first} the oldest of them",
            unfinished.len()
        ),
    )
    .detail(format!("{why}; see cpu-and-gpu.md#why-the-cpu-ever-waits")))
}
