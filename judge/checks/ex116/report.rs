//! The report: every request's output and the number finished equal the
//! decoder's reference on the CPU, with no race behind them. A wrong report
//! is named by what is wrong in it: a race (a pinned buffer rewritten while
//! its copy was queued, above all), the outputs or the finished count.

use super::support::{BATCH, Run, describe, run};
use gpu::{OpKind, RaceReport};
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str = "each request's predictions up to its first `eos`, and the number of requests that predicted it, as the decoder's reference computes them, and no race";

pub(super) fn the_report_is_the_reference(ctx: &Ctx) -> Result<(), Failure> {
    is_the_reference(&run(ctx)?)
}

/// The check on one run's report and races.
pub(super) fn is_the_reference(run: &Run) -> Result<(), Failure> {
    if let Some(race) = run.races.first() {
        return Err(raced(run, race, right(run)));
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
                "{} requests finished where {} predicted `eos` ({}) at some step: {}",
                got.finished,
                want.finished,
                want.eos,
                why_finished(run)
            ),
        ));
    }
    Ok(())
}

/// Why the count of finished requests is wrong, when the trace or the
/// count itself shows it: no `flag_eq`, the flags cleared in each step, or
/// `flag_eq` on the inputs.
fn why_finished(run: &Run) -> String {
    let (got, want) = (run.report.finished, &run.workload);
    let rule = "the done flags are set by `flag_eq` on each step's predictions, on the GPU, and counted once, in `finish`";
    let in_every_step = |name: &str| {
        !run.steps.is_empty()
            && run.steps.iter().all(|s| {
                s.iter()
                    .any(|e| e.op == OpKind::Launch && e.name.starts_with(name))
            })
    };
    let count = |rows: &[Vec<i32>]| {
        (0..BATCH)
            .filter(|&r| rows.iter().any(|p| p[r] == want.eos))
            .count()
    };
    let last = want.predicted.len().saturating_sub(1);
    if !run
        .steps
        .iter()
        .flatten()
        .any(|e| e.name.starts_with("flag_eq"))
    {
        return format!("no step ran `flag_eq`, so no done flag was ever set; {rule}");
    }
    let fill = run.steps[0]
        .iter()
        .find(|e| e.op == OpKind::Launch && e.name.starts_with("fill"));
    if let Some(fill) = fill.filter(|_| in_every_step("fill"))
        && got == count(&want.predicted[last..])
    {
        return format!(
            "{got} is how many predicted it at the last step: every step cleared the done flags ({}), so each step's `flag_eq` started from zero and only the last step's finishers were left. The flags are sticky: `flag_eq` only sets them, so allocate them zeroed once, in `new`, and never clear them",
            describe(fill)
        );
    }
    if got == count(&want.inputs) {
        return format!(
            "{got} is how many were fed `eos` as an input at some step: `flag_eq` read the step's input tokens, not its predictions. A request is finished when its prediction is `eos`: flag the step's row of the history (`predicted`)"
        );
    }
    rule.into()
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
    if run.report.outputs == outputs_at(run, |t| t) {
        return format!(
            "request {r}'s output is {got:?} where the decoder predicts {want:?}: the outputs are what the history holds when step t writes its predictions at `history[t..t + batch]`, an offset of t elements, not t rows, so each step overwrote all but one of the step before's. Step t's row starts at `t * batch`: `history.slice(t * batch..(t + 1) * batch)`"
        );
    }
    if got.len() > 1 && got[1..].iter().all(|&x| x == 0) && want.get(1).is_some_and(|&x| x != 0) {
        return format!(
            "request {r}'s output is {got:?} where the decoder predicts {want:?}: every step after the first reads 0, what the history held before the run, so no step wrote its own row. Step t writes its predictions into row t of the history (`history.slice(t * batch..(t + 1) * batch)`)"
        );
    }
    if run.report.outputs == outputs_of(run, &fed_back(run)) {
        return format!(
            "request {r}'s output is {got:?} where the decoder predicts {want:?}: the outputs are the model's own chain, each step decoded from the step before's predictions, not from the tokens the scheduler gave it (`step(tokens)`). In this engine the scheduler chooses every step's input: decode from the copy of `tokens` in every step"
        );
    }
    format!("request {r}'s output is {got:?} where the decoder predicts {want:?}")
}

/// The predictions of a decoding that feeds each step's predictions back
/// as the next step's input, from the first step's tokens on.
fn fed_back(run: &Run) -> Vec<Vec<i32>> {
    let mut rows: Vec<Vec<i32>> = Vec::new();
    for t in 0..run.workload.predicted.len() {
        let input = match t {
            0 => &run.workload.inputs[0],
            _ => &rows[t - 1],
        };
        rows.push(run.decoder.reference_step(input));
    }
    rows
}

/// The outputs `finish` reports when step t writes its predictions at
/// element `offset(t)` of the history (later steps over earlier ones).
fn outputs_at(run: &Run, offset: impl Fn(usize) -> usize) -> Vec<Vec<i32>> {
    history_outputs(run, &run.workload.predicted, offset)
}

/// The outputs of a history whose step t holds `rows[t]`.
fn outputs_of(run: &Run, rows: &[Vec<i32>]) -> Vec<Vec<i32>> {
    history_outputs(run, rows, |t| t * BATCH)
}

/// The outputs `finish` cuts from a history where step t wrote `rows[t]`
/// at element `offset(t)`.
fn history_outputs(run: &Run, rows: &[Vec<i32>], offset: impl Fn(usize) -> usize) -> Vec<Vec<i32>> {
    let want = &run.workload;
    let steps = rows.len();
    let mut history = vec![0; steps * BATCH];
    for (t, row) in rows.iter().enumerate() {
        for (r, &token) in row.iter().enumerate() {
            if let Some(slot) = history.get_mut(offset(t) + r) {
                *slot = token;
            }
        }
    }
    (0..BATCH)
        .map(|r| {
            let mut out = Vec::new();
            for t in 0..steps {
                out.push(history[t * BATCH + r]);
                if history[t * BATCH + r] == want.eos {
                    break;
                }
            }
            out
        })
        .collect()
}

/// Whether the CPU wrote the pinned buffer of the race in a step after
/// queuing that step's copy from it: the write came after the copy it
/// feeds, not over a copy of an earlier step.
fn written_after_its_copy(run: &Run, race: &RaceReport) -> bool {
    run.steps.iter().any(|step| {
        let write = step
            .iter()
            .find(|e| e.op == OpKind::HostWrite && e.site == race.current.site);
        write.is_some_and(|w| {
            step.iter().any(|e| {
                e.op == OpKind::CopyHostToDevice && e.site == race.previous.site && e.seq < w.seq
            })
        })
    })
}

/// A race behind the report: the race is the cause, whatever the numbers.
fn raced(run: &Run, race: &RaceReport, right: bool) -> Failure {
    let pinned = race.host
        && [&race.current.what, &race.previous.what]
            .iter()
            .any(|w| w.contains("CPU write"));
    let cause = if pinned && written_after_its_copy(run, race) {
        format!(
            "each step queued the copy from its pinned buffer (at {}) before writing the step's tokens into it (at {}): nothing orders the CPU's write before that copy, which may run as soon as the stream reaches it and send what the buffer held before. Write the pinned buffer first, then queue `copy_from_pinned`",
            race.previous.site, race.current.site
        )
    } else if pinned {
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
