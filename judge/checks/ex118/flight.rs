//! At most `depth` steps in flight: when step k is queued, at most
//! `depth − 1` earlier steps are unfinished on the GPU.

use super::workload::{DEPTH, STEPS, Submitted, misplaced_events, submitted, wait_after_its_step};
use judge_harness::{Ctx, Failure};

/// A wait shorter than this returned at once: what it waited for was done.
const AT_ONCE_NS: u64 = 20_000;

pub(super) fn at_most_depth_in_flight(ctx: &Ctx) -> Result<(), Failure> {
    bounded(&submitted(ctx, STEPS, DEPTH)?)
}

/// Fails at the first step queued with `depth` or more earlier steps
/// unfinished, naming it and how many were in flight.
pub(super) fn bounded(submission: &Submitted) -> Result<(), Failure> {
    let (_, depth) = submission.asked;
    for (i, step) in submission.steps.iter().enumerate() {
        let unfinished = submission.steps[..i]
            .iter()
            .filter(|s| s.gpu_ns.1 > step.queued_ns)
            .count();
        if unfinished < depth.max(1) {
            continue;
        }
        let waits = submission.waits(submission.marks.0, step.marks.0);
        let misplaced = misplaced_events(submission);
        let after = wait_after_its_step(submission);
        let why = match (waits.last(), misplaced, after) {
            (_, Some(misplaced), _) => misplaced,
            (_, None, Some((wait, k))) if k + 1 >= step.k => format!(
                "the loop waits after queuing a step, not before: `{}` at {} came after step {k} was queued and before its event was recorded, so step {k} joined {unfinished} unfinished ones. Wait for step k − {depth}'s event before calling `step(stream, k)`",
                wait.name, wait.site
            ),
            (last, None, _) => match last {
                Some(wait) if wait.cpu_ns() < AT_ONCE_NS => format!(
                    "the loop's last wait before it, `{}` at {}, returned at once: the event it waited for had completed long before, so it held nothing back. The same oldest event waited for again and again (read with `front()` and never taken off the queue) does that: once waited for, the oldest event leaves the queue (`pop_front`), so that the next wait is for the next step",
                    wait.name, wait.site
                ),
                Some(wait) => format!(
                    "the loop's last wait before it, `{}` at {}, did not wait for step {}: the wait must come before each step, for the event recorded after step k − depth",
                    wait.name,
                    wait.site,
                    step.k.saturating_sub(depth)
                ),
                None => match first_wait_after(submission, i) {
                    Some(later) => format!(
                        "the loop's first wait came only before step {later}: with depth {depth}, the CPU must wait from step {depth} on, before each step, for the step {depth} back"
                    ),
                    None => never_waited(submission),
                },
            },
        };
        return Err(Failure::new(
            format!("at most {depth} steps in flight: when a step is queued, at most {} earlier ones unfinished", depth.max(1) - 1),
            format!(
                "when step {} was queued, {unfinished} earlier steps were unfinished: {} in flight",
                step.k,
                unfinished + 1
            ),
        )
        .detail(format!(
            "{why}; record an event after each step, and before queuing step k wait for the one of step k − {depth}; see cpu-and-gpu.md#why-the-cpu-ever-waits"
        )));
    }
    Ok(())
}

/// Why the CPU never waited in the loop: it queued GPU-side waits
/// (`Stream::wait_event`, which return at once), or nothing at all.
fn never_waited(submission: &Submitted) -> String {
    let trace = submission.trace();
    let (from, to) = submission.marks;
    let gpu_wait = trace
        .since(from)
        .iter()
        .take_while(|e| e.seq < to)
        .find(|e| e.op == gpu::OpKind::StreamWaitEvent)
        .cloned();
    match gpu_wait {
        Some(e) => format!(
            "the CPU never waited: the loop's wait, `{}` at {}, is a wait queued on the GPU (`Stream::wait_event` holds back the stream's later work and returns at once), and the stream runs its steps in order anyway. Backpressure needs the CPU to stop until step k − depth has finished: `Event::synchronize` on its event",
            e.name, e.site
        ),
        None => "the loop never waited: a launch only queues work, so the CPU ran ahead of the GPU as far as the loop went, and the queue (with everything each step holds) grew without bound".to_string(),
    }
}

/// The step before which the loop first waited, looking from step `i` on,
/// if it ever did before its last step.
fn first_wait_after(submission: &Submitted, i: usize) -> Option<usize> {
    submission.steps[i..]
        .windows(2)
        .find(|pair| {
            !submission
                .waits(pair[0].marks.1, pair[1].marks.0)
                .is_empty()
        })
        .map(|pair| pair[1].k)
}
