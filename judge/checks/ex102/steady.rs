//! The steady state, read from the trace: between one `decode_step` launch
//! and the next, the only call that can block the CPU is the one event wait.

use super::support::{CPU_STEP, Steps, describe, setup, steady_batch};
use gpu::{BlockReason, OpKind, TraceEntry};
use judge_harness::polling::polling_loops;
use judge_harness::{Ctx, Failure};

pub(super) fn one_event_wait_per_step(ctx: &Ctx) -> Result<(), Failure> {
    let (device, stream, decoder) = setup(ctx)?;
    overlap_sampler::generate(&stream, &decoder, &steady_batch(4, 10), CPU_STEP)?;
    ctx.save_timeline(&device);
    let trace = device.trace();
    let steps = Steps::of(&trace.entries);
    let steady = steps.steady();
    if steady.is_empty() {
        return Err(Failure::new(
            "one `decode_step` launch per step (10 tokens: 10 launches or 11)",
            format!("{} launches", steps.windows.len() + 1),
        ));
    }
    for (k, window) in steady.iter().enumerate() {
        let blocking: Vec<_> = window.iter().filter(|e| e.blocking.is_some()).collect();
        let waits = blocking
            .iter()
            .filter(|e| e.blocking == Some(BlockReason::EventSynchronize))
            .count();
        let reads = window.iter().any(|e| e.op == OpKind::HostRead);
        let other = blocking
            .iter()
            .find(|e| e.blocking != Some(BlockReason::EventSynchronize));
        let step = k + 2;
        if let Some(bad) = other {
            let what = if bad.blocking == Some(BlockReason::PageableDeviceToHost) {
                "a pageable device-to-host copy (a copy into a `Vec`): it waits until the GPU has run everything queued before it"
            } else {
                "a call that makes the CPU wait for the GPU"
            };
            return Err(Failure::new(
                "between the launch of one step and the next, no blocking call but the one event wait",
                format!(
                    "after the launch of step {step}: {what}: {}",
                    describe(bad)
                ),
            )
            .at(bad.site));
        }
        let polling = polling_loops(window.iter());
        if let (0, Some(lp)) = (waits, polling.first()) {
            return Err(Failure::new(
                "in each steady-state step: one event wait, then the CPU reads the step's results from pinned memory",
                format!(
                    "after the launch of step {step}: `{}` called {} times and no event wait: a CPU that polls `query()` until the copy is done waits for the GPU as surely as `Event::synchronize`, and burns a core doing it",
                    lp.first.name, lp.times
                ),
            )
            .at(lp.first.site)
            .detail("where the CPU needs the results, wait for their event with `Event::synchronize`; see sampling-overlap.md#processing-the-results"));
        }
        if let (2.., Some(wait)) = (waits, wait_before_the_next_launch(window)) {
            return Err(Failure::new(
                "in each steady-state step: one event wait, then the CPU reads the step's results from pinned memory",
                format!(
                    "after the launch of step {step}: {waits} event waits; the last, {}, comes after the CPU read the step's results, just before the next step is queued: the CPU waits for the GPU to finish a step before queuing the next one",
                    describe(wait)
                ),
            )
            .at(wait.site)
            .detail("work on one stream runs in order, so the next step already runs after the previous one on the GPU without the CPU waiting: `submit` only queues (a wait there lets the GPU's queue run dry before every launch), and the one wait per step is in `process`, on the event of the step whose results it reads; see sampling-overlap.md#where-the-sync-is"));
        }
        if waits != 1 || !reads {
            return Err(Failure::new(
                "in each steady-state step: one event wait, then the CPU reads the step's results from pinned memory",
                format!(
                    "after the launch of step {step}: {waits} event wait(s) and {} pinned read(s)",
                    window.iter().filter(|e| e.op == OpKind::HostRead).count()
                ),
            ));
        }
    }
    Ok(())
}

/// An event wait of `window` (one step, from a `decode_step` launch up to
/// the next) after its last read of pinned memory: a wait whose results
/// the CPU never reads before the next launch, made only to hold that
/// launch back. None when the window reads nothing.
pub(super) fn wait_before_the_next_launch(window: &[TraceEntry]) -> Option<&TraceEntry> {
    let after = window.iter().rposition(|e| e.op == OpKind::HostRead)? + 1;
    window[after..]
        .iter()
        .find(|e| e.blocking == Some(BlockReason::EventSynchronize))
}
