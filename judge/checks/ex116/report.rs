//! The report: every request's output and the number finished equal the
//! decoder's reference on the CPU, with no race behind them. A wrong report
//! is named by what is wrong in it: a race (a pinned buffer rewritten while
//! its copy was queued, above all), the outputs or the finished count.

use super::support::{Run, run};
use gpu::RaceReport;
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str = "each request's predictions up to its first `eos`, and the number of requests that predicted it, as the decoder's reference computes them, and no race";

pub(super) fn the_report_is_the_reference(ctx: &Ctx) -> Result<(), Failure> {
    is_the_reference(&run(ctx)?)
}

/// The check on one run's report and races.
pub(super) fn is_the_reference(run: &Run) -> Result<(), Failure> {
    if let Some(race) = run.races.first() {
        return Err(raced(race, right(run)));
    }
    let (got, want) = (&run.report, &run.workload);
    if got.outputs.len() != want.outputs.len() {
        return Err(Failure::new(
            EXPECTED,
            format!(
                "{} outputs for {} requests: one per request",
                got.outputs.len(),
                want.outputs.len()
            ),
        ));
    }
    if let Some(r) = (0..want.outputs.len()).find(|&r| got.outputs[r] != want.outputs[r]) {
        return Err(Failure::new(EXPECTED, wrong_output(run, r)));
    }
    if got.finished != want.finished {
        return Err(Failure::new(
            EXPECTED,
            format!(
                "{} requests finished where {} predicted `eos` ({}) at some step: the done flags are set by `flag_eq` on each step's predictions, on the GPU, and counted once, in `finish`",
                got.finished, want.finished, want.eos
            ),
        ));
    }
    Ok(())
}

/// Whether the report is right, races aside.
fn right(run: &Run) -> bool {
    run.report.outputs == run.workload.outputs && run.report.finished == run.workload.finished
}

/// Why request `r`'s output is wrong, by its shape.
fn wrong_output(run: &Run, r: usize) -> String {
    let (got, want) = (&run.report.outputs[r], &run.workload.outputs[r]);
    let eos = run.workload.eos;
    if got.is_empty() {
        return format!(
            "request {r}'s output is empty where it is {want:?}: no prediction was kept. Keep each step's predictions in a history buffer on the GPU, row t for step t, and read it in `finish`"
        );
    }
    if got.len() > want.len() && got.starts_with(want) {
        return format!(
            "request {r}'s output is {got:?}: it goes on after its first `eos` ({eos}), which ends it at {want:?}. `outputs_from_history` cuts each output there"
        );
    }
    if want.len() > got.len() && want.starts_with(got) {
        return format!(
            "request {r}'s output is {got:?}, the first {} of its predictions {want:?}: the history read in `finish` is missing the steps after. Read the rows of every step that ran",
            got.len()
        );
    }
    if got.len() > 1 && got[1..].iter().all(|&x| x == 0) && want.get(1).is_some_and(|&x| x != 0) {
        return format!(
            "request {r}'s output is {got:?} where the decoder predicts {want:?}: every step after the first reads 0, what the history held before the run, so no step wrote its own row. Step t writes its predictions into row t of the history (`history.slice(t * batch..(t + 1) * batch)`)"
        );
    }
    format!("request {r}'s output is {got:?} where the decoder predicts {want:?}")
}

/// A race behind the report: the race is the cause, whatever the numbers.
fn raced(race: &RaceReport, right: bool) -> Failure {
    let pinned = race.host
        && [&race.current.what, &race.previous.what]
            .iter()
            .any(|w| w.contains("CPU write"));
    let cause = if pinned {
        "the CPU rewrote a pinned buffer while a copy from it was still queued: the copy may read the new tokens, or half of them. A pinned buffer may be rewritten only once its copy is known to be done; with one pinned buffer per step, each written once, none ever is".to_string()
    } else {
        format!(
            "two operations on the same memory that nothing orders, {} at {} and {} at {}",
            race.previous.what, race.previous.site, race.current.what, race.current.site
        )
    };
    let actual = if right {
        format!(
            "the report came out right in this run, but only because the GPU happened to be quick: {cause}"
        )
    } else {
        format!("the report is wrong, and the race checker says why: {cause}")
    };
    Failure::new(EXPECTED, actual)
        .at(race.current.site)
        .detail(race.to_string())
}
