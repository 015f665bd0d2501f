//! What the CPU waits for: with `depth` ≥ 2 the GPU never idles between two
//! steps; before step k the CPU waits at most once, with an event's
//! `synchronize`, and only until step k − depth has finished; at the end
//! it waits once.

use super::workload::{DEPTH, IDLE_NS, STEPS, Submitted, submitted};
use gpu::{OpKind, TraceEntry};
use judge_harness::{Ctx, Failure};

pub(super) fn the_gpu_never_idles(ctx: &Ctx) -> Result<(), Failure> {
    let submission = submitted(ctx, STEPS, DEPTH)?;
    for pair in submission.steps.windows(2) {
        let (before, step) = (&pair[0], &pair[1]);
        let idle_ns = step.gpu_ns.0.saturating_sub(before.gpu_ns.1);
        if idle_ns <= IDLE_NS {
            continue;
        }
        let waits = submission.waits(before.marks.1, step.marks.0);
        let drained = waits
            .iter()
            .find(|w| w.cpu_end_ns + IDLE_NS >= before.gpu_ns.1);
        let failure = Failure::new(
            format!(
                "with depth {DEPTH}, the GPU never sits idle between two steps: the next step is queued before the one before it finishes"
            ),
            format!(
                "the GPU sat idle {:.3} ms between step {} and step {}",
                idle_ns as f64 / 1e6,
                before.k,
                step.k
            ),
        );
        return Err(match drained {
            Some(wait) => failure.at(wait.site).detail(format!(
                "`{}` at {} returned only when step {}, the newest, had finished ({}): it drained the queue, and the GPU waited while the CPU queued step {}; wait for the event of step k − {DEPTH}, the oldest in flight; see cpu-and-gpu.md#why-the-cpu-ever-waits",
                wait.name,
                wait.site,
                before.k,
                what(wait),
                step.k
            )),
            None => failure.detail(format!(
                "no call that blocks drained it: the CPU was late queuing step {} (polling an event until it completes is a wait in disguise); wait for the event of step k − {DEPTH} with its `synchronize`; see cpu-and-gpu.md#why-the-cpu-ever-waits",
                step.k
            )),
        });
    }
    Ok(())
}

pub(super) fn only_the_oldest_is_waited_for(ctx: &Ctx) -> Result<(), Failure> {
    oldest_only(&submitted(ctx, STEPS, DEPTH)?)
}

/// What a wait waits for, in words.
fn what(wait: &TraceEntry) -> &'static str {
    match wait.blocking {
        Some(reason) => reason.explain(),
        None => "it cannot wait",
    }
}

/// Fails at the first wait that is not one `synchronize` of the event of
/// step k − depth before step k, or one wait at the end.
pub(super) fn oldest_only(submission: &Submitted) -> Result<(), Failure> {
    let (_, depth) = submission.asked;
    let depth = depth.max(1);
    let mut from = submission.marks.0;
    for (i, step) in submission.steps.iter().enumerate() {
        let waits = submission.waits(from, step.marks.0);
        from = step.marks.1;
        let expected = format!(
            "before step k, at most one wait: an event's `synchronize`, until step k − {depth} has finished"
        );
        if waits.len() > 1 {
            let named: Vec<String> = waits
                .iter()
                .map(|w| format!("`{}` at {}", w.name, w.site))
                .collect();
            return Err(Failure::new(expected, format!("before step {} the CPU waited {} times: {}", step.k, waits.len(), named.join(", ")))
                .at(waits[1].site)
                .detail(format!("one wait bounds the queue; each more one drains it further; wait only for the event of step {}; see cpu-and-gpu.md#why-the-cpu-ever-waits", step.k.saturating_sub(depth))));
        }
        let Some(wait) = waits.first() else {
            continue;
        };
        if wait.op != OpKind::EventSynchronize {
            return Err(Failure::new(
                expected,
                format!("before step {} the CPU waited in `{}` at {}", step.k, wait.name, wait.site),
            )
            .at(wait.site)
            .detail(format!(
                "{}: that waits for the newest step, not for the oldest, and leaves the GPU with nothing queued; wait with `synchronize` on the event recorded after step k − {depth}; see cpu-and-gpu.md#why-the-cpu-ever-waits",
                what(wait)
            )));
        }
        if i < depth {
            return Err(Failure::new(
                expected,
                format!("before step {} the CPU waited in `{}` at {}, with only {i} steps queued", step.k, wait.name, wait.site),
            )
            .at(wait.site)
            .detail(format!("with depth {depth}, the first {depth} steps are queued without a wait: no step k − {depth} exists yet; see cpu-and-gpu.md#why-the-cpu-ever-waits")));
        }
        let oldest = &submission.steps[i - depth];
        let due = oldest.gpu_ns.1.max(wait.cpu_start_ns);
        if wait.cpu_end_ns > due + IDLE_NS {
            let newer = submission.steps[..i]
                .iter()
                .rev()
                .find(|s| s.gpu_ns.1 <= wait.cpu_end_ns + IDLE_NS)
                .map_or(oldest.k, |s| s.k);
            return Err(Failure::new(
                expected,
                format!(
                    "before step {} the CPU waited in `{}` at {} until step {newer} had finished, not step {}",
                    step.k, wait.name, wait.site, oldest.k
                ),
            )
            .at(wait.site)
            .detail(format!(
                "it waited for a newer step's event than step k − {depth}: the bound holds, but the queue runs short; keep the events oldest first and wait for the front one; see cpu-and-gpu.md#why-the-cpu-ever-waits"
            )));
        }
    }
    let at_end = submission.waits(from, submission.marks.1);
    if at_end.len() > 1 {
        return Err(Failure::new(
            "after the last step, one wait",
            format!("after the last step the CPU waited {} times, first in `{}` at {}", at_end.len(), at_end[0].name, at_end[0].site),
        )
        .at(at_end[1].site)
        .detail("the last step's event completes after every step before it (one stream runs in order): wait for it alone; see cpu-and-gpu.md#why-the-cpu-ever-waits"));
    }
    Ok(())
}
