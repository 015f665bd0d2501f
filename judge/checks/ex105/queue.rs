//! Timed with events, the runs are queued back to back: the CPU waits once,
//! for the last end event, after the last run.

use super::workload::{PLAN, measured};
use gpu::OpKind;
use judge_harness::{Ctx, Failure};

pub(super) fn the_timed_runs_are_queued_back_to_back(ctx: &Ctx) -> Result<(), Failure> {
    let measurement = measured(ctx)?;
    let calls = &measurement.calls;
    let (Some(first), Some(last)) = (calls.get(PLAN.warmup).or(calls.first()), calls.last()) else {
        return Ok(());
    };
    let trace = measurement.trace();
    let between: Vec<_> = trace
        .since(first.0)
        .iter()
        .take_while(|e| e.seq < last.0)
        .collect();
    // The CPU-clock way waits around every run by design; with events, the
    // loop only queues.
    if !between.iter().any(|e| e.op == OpKind::EventRecord) {
        return Ok(());
    }
    let Some(wait) = between.iter().find(|e| e.blocking.is_some()) else {
        return Ok(());
    };
    let before = calls
        .iter()
        .position(|c| c.0 > wait.seq)
        .unwrap_or(calls.len());
    Err(Failure::new(
        "timed with events, every run queued back to back: no call that can make the CPU wait between the first timed run and the last",
        format!(
            "`{}` at {} can make the CPU wait inside the timed loop, before call {before} of the workload was queued (it waited {:.3} ms)",
            wait.name,
            wait.site,
            wait.cpu_ns() as f64 / 1e6
        ),
    )
    .at(wait.site)
    .detail("reading `elapsed_ms` waits for both of its events, and a synchronize waits for the stream: inside the loop either keeps the CPU from running ahead; queue every run, wait once for the last end event, then read the times; see hidden-syncs.md#timing-gpu-work"))
}
