//! The checks: the learner's table of each step against the truth, one
//! column at a time. A failure names the first range the learner got
//! wrong, the cause the judge sees in the answers (a known mistake whose
//! reading is every wrong value of the column, or else the rule), and the
//! section about it, with the step's table and the range's calls.

use super::causes::{cause, order_cause, pick};
use super::readings::{Column, explain};
use super::runner::{Run, Traced, run};
use super::words::{ATTRIBUTING, RANGES, RUNNING, calls, range, table, us};
use attribute_ranges::RangeTime;
use gpu::Trace;
use judge_harness::{Ctx, Failure};
use std::rc::Rc;

/// An `attribute` with the exercise's signature.
pub(crate) type Attribute = fn(&Trace) -> Vec<RangeTime>;

/// The `attribute` the checks ask: the learner's, unless a test of the
/// suite put another in its place.
fn chosen() -> Attribute {
    #[cfg(test)]
    if let Some(other) = super::tests::replacement() {
        return other;
    }
    attribute_ranges::attribute
}

/// The answers of `attribute` for each step of `run`.
pub(crate) fn answers(run: &Run, attribute: Attribute) -> Vec<Vec<RangeTime>> {
    run.steps.iter().map(|s| attribute(&s.trace)).collect()
}

/// The run of `ctx` and the learner's answers for it.
fn asked(ctx: &Ctx) -> Result<(Rc<Run>, Vec<Vec<RangeTime>>), Failure> {
    let run = run(ctx)?;
    let said = answers(&run, chosen());
    Ok((run, said))
}

/// What a column is, in the words of a check's expectation.
fn meaning(column: Column) -> &'static str {
    match column {
        Column::Cpu => "CPU time from open to close",
        Column::CpuSelf => "exclusive CPU time (less the ranges directly nested in it)",
        Column::Gpu => "GPU time (the busy time of the work its calls queued, on any stream)",
        Column::GpuSelf => {
            "exclusive GPU time (the busy time of the work queued in it outside its nested ranges)"
        }
    }
}

/// The section that explains `column`.
fn section(column: Column) -> &'static str {
    match column {
        Column::Cpu => RANGES,
        _ => ATTRIBUTING,
    }
}

/// Where to read more, after the step's table and the calls of range `i`.
fn detail(step: &Traced, said: &[RangeTime], i: usize, column: Column) -> String {
    format!(
        "{}\n{}see {}; `judge run 120 --timeline t.svg` draws the steps and their ranges ({RUNNING})",
        table(step, said, i),
        calls(step, i),
        section(column)
    )
}

/// A failure for the first step whose row count is not its ranges'.
fn count(run: &Run, said: &[Vec<RangeTime>]) -> Result<(), Failure> {
    let Some((step, mine)) = run
        .steps
        .iter()
        .zip(said)
        .find(|(s, m)| m.len() != s.truth.len())
    else {
        return Ok(());
    };
    Err(Failure::new(
        format!(
            "one row per range of `trace.ranges`, in its order: {} rows for step {}",
            step.truth.len(),
            step.number
        ),
        format!(
            "you returned {} rows for the {} ranges of step {}{}. Return one `RangeTime` per range of `trace.ranges`, in its order, also for a range that made no call or queued no GPU work (its GPU times are 0)",
            mine.len(),
            step.truth.len(),
            step.number,
            idle_ranges(step, mine.len())
        ),
    )
    .detail(format!("{}see {RANGES}", table(step, &[], usize::MAX))))
}

/// The ranges of `step` that queued no GPU work, in words, when leaving
/// them out gives `rows` rows.
fn idle_ranges(step: &Traced, rows: usize) -> String {
    let idle: Vec<String> = (0..step.truth.len())
        .filter(|&i| step.truth[i].gpu_ns == 0)
        .map(|i| range(step, i))
        .collect();
    if step.truth.len() - idle.len() != rows {
        return String::new();
    }
    format!(
        ": the {} missing are those that queued no GPU work, {}",
        idle.len(),
        idle.join(" and ")
    )
}

pub(super) fn inclusive_cpu_time(ctx: &Ctx) -> Result<(), Failure> {
    let (run, said) = asked(ctx)?;
    rows(&run, &said)
}

/// One row per range, in the order of `trace.ranges`, each with the
/// range's CPU time.
pub(crate) fn rows(run: &Run, said: &[Vec<RangeTime>]) -> Result<(), Failure> {
    count(run, said)?;
    for (step, mine) in run.steps.iter().zip(said) {
        if let Some(actual) = order_cause(step, mine) {
            let first = first_wrong(step, mine, Column::Cpu).unwrap_or(0);
            return Err(Failure::new(
                format!(
                    "one row per range, in the order of `trace.ranges` (step {})",
                    step.number
                ),
                actual,
            )
            .detail(detail(step, mine, first, Column::Cpu)));
        }
    }
    column(run, said, Column::Cpu)
}

pub(super) fn exclusive_cpu_time(ctx: &Ctx) -> Result<(), Failure> {
    let (run, said) = asked(ctx)?;
    count(&run, &said)?;
    column(&run, &said, Column::CpuSelf)
}

pub(super) fn gpu_time_of_the_work_each_range_queued(ctx: &Ctx) -> Result<(), Failure> {
    let (run, said) = asked(ctx)?;
    count(&run, &said)?;
    column(&run, &said, Column::Gpu)
}

pub(super) fn exclusive_gpu_time(ctx: &Ctx) -> Result<(), Failure> {
    let (run, said) = asked(ctx)?;
    count(&run, &said)?;
    column(&run, &said, Column::GpuSelf)
}

/// The first row of `step` whose `column` the learner got wrong.
fn first_wrong(step: &Traced, said: &[RangeTime], column: Column) -> Option<usize> {
    (0..step.truth.len()).find(|&i| column.of(&said[i]) != column.of(&step.truth[i]))
}

/// The rows of `step` whose `column` the learner got wrong.
fn wrong_rows(step: &Traced, said: &[RangeTime], column: Column) -> Vec<usize> {
    (0..step.truth.len())
        .filter(|&i| column.of(&said[i]) != column.of(&step.truth[i]))
        .collect()
}

/// Every row of every step has `column` right (each step has one row per
/// range: [`count`] passed).
pub(crate) fn column(run: &Run, said: &[Vec<RangeTime>], column: Column) -> Result<(), Failure> {
    let wrong: Vec<Vec<usize>> = run
        .steps
        .iter()
        .zip(said)
        .map(|(s, m)| wrong_rows(s, m, column))
        .collect();
    let Some(k) = wrong.iter().position(|w| !w.is_empty()) else {
        return Ok(());
    };
    let (step, mine) = (&run.steps[k], &said[k]);
    let mistake = explain(step, mine, column);
    let i = pick(step, &wrong[k], column, mistake).expect("a wrong row");
    let ranges: usize = run.steps.iter().map(|s| s.truth.len()).sum();
    let count: usize = wrong.iter().map(Vec::len).sum();
    Err(Failure::new(
        format!(
            "each range's {}: for {} of step {}, {}",
            meaning(column),
            range(step, i),
            step.number,
            us(column.of(&step.truth[i]))
        ),
        format!(
            "`{}` is wrong for {count} of the {ranges} ranges of the judge's {} steps. {}",
            column.field(),
            run.steps.len(),
            cause(step, i, column, mistake, column.of(&mine[i]))
        ),
    )
    .detail(detail(step, mine, i, column)))
}
