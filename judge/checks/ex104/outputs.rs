//! The outputs and the log lines against the reference, and no race.

use super::support::Bench;
use super::workload::STEPS;
use judge_harness::{Ctx, Failure};

pub(super) fn outputs_and_logs_match_the_reference(ctx: &Ctx) -> Result<(), Failure> {
    let bench = Bench::open(ctx)?;
    let report = bench.run(STEPS, |_| Ok(()))?;
    ctx.save_trace("outputs", &bench.device);
    let races = bench.device.races();
    if let Some(race) = races.first() {
        return Err(Failure::new(
            "no data race between the CPU, the copy stream and the compute stream",
            format!("{} race(s); the first is below", races.len()),
        )
        .at(race.current.site)
        .detail(format!(
            "{race}\nan input buffer or a pinned buffer was reused before the GPU was done with it, or a stream read data another stream had not finished writing; see hidden-syncs.md#why-a-sync-exists"
        )));
    }
    let expected = &bench.workload;
    if let Some(r) =
        (0..expected.outputs.len()).find(|&r| report.outputs.get(r) != Some(&expected.outputs[r]))
    {
        return Err(Failure::new(
            format!("request {r}'s output {:?}", expected.outputs[r]),
            format!("{:?}", report.outputs.get(r)),
        )
        .detail("an output holds a request's predictions up to its first `eos`; a finished request must not change, and an unfinished one must get every step's prediction"));
    }
    if report.logs != expected.logs {
        return Err(Failure::new(
            format!("the log lines {:?}", expected.logs),
            format!("{:?}", report.logs),
        )
        .detail("a log line after steps K-1, 2K-1, …: the tokens generated in its window (one per request not finished before the step) and the requests finished after it"));
    }
    if report.step_ms.len() != STEPS {
        return Err(Failure::new(
            format!("{STEPS} step times, one per step"),
            format!("{} step times", report.step_ms.len()),
        ));
    }
    Ok(())
}
