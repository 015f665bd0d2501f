//! The checks: each family of calls, every prediction against the wait the
//! GPU showed. A wrong prediction names the call, what was queued ahead of
//! it, the measured wait, the rule and its section, with the whole program.

use super::program::Action;
use super::runner::{Ran, Run, run};
use super::words::{ahead, rule, what};
use judge_harness::{Ctx, Failure};
use which_calls_wait::{Call, Direction, Staging, Wait};

/// A prediction function: the learner's `predict`.
pub(crate) type Predict<'a> = &'a mut dyn FnMut(&Call, &Staging) -> Wait;

/// The calls a check grades.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    /// Launches, graph launches, event records, waits and queries.
    Queued,
    /// The explicit waits: event, stream and device synchronize.
    Synchronize,
    /// Raw frees.
    Free,
    /// Copies from the device to the host.
    ToHost,
    /// Copies from the host to the device.
    FromHost,
}

impl Family {
    fn holds(self, action: &Action) -> bool {
        let family = match action {
            Action::Launch { .. }
            | Action::GraphLaunch { .. }
            | Action::Record { .. }
            | Action::WaitEvent { .. }
            | Action::Query { .. } => Self::Queued,
            Action::SyncEvent { .. } | Action::SyncStream { .. } | Action::SyncDevice => {
                Self::Synchronize
            }
            Action::FreeSegment => Self::Free,
            Action::Copy {
                direction: Direction::DeviceToHost,
                ..
            } => Self::ToHost,
            Action::Copy { .. } => Self::FromHost,
        };
        family == self
    }

    fn name(self) -> &'static str {
        match self {
            Self::Queued => "launch, graph launch, event record, wait and query",
            Self::Synchronize => "synchronize",
            Self::Free => "raw free",
            Self::ToHost => "device-to-host copy",
            Self::FromHost => "host-to-device copy",
        }
    }
}

/// What the CPU did in a call, in words.
fn waited(ran: &Ran) -> String {
    let ms = ran.cpu_ns as f64 / 1e6;
    match ran.truth {
        Wait::Nothing => format!("the call returned after {ms:.3} ms, waiting for nothing"),
        Wait::Stream => format!("the CPU waited {ms:.3} ms, for the work queued on the stream"),
        Wait::Event => format!("the CPU waited {ms:.3} ms, for the work before the event"),
        Wait::Device => format!("the CPU waited {ms:.3} ms, for every stream of the device"),
        Wait::StagingSlot => format!("the CPU waited {ms:.3} ms, for a staging slot"),
    }
}

/// The program of `wrong` as a listing, the wrong call marked.
fn listing(run: &Run, wrong: &Ran) -> String {
    let mut text = format!("program {} (seed {:#x}):\n", wrong.program, run.seed);
    for ran in &run.programs[wrong.program - 1] {
        let mark = if ran.index == wrong.index { "→" } else { " " };
        text += &format!(
            "{mark} {:>2}. {} ({}): {:.3} ms, {:?}\n",
            ran.index,
            what(&ran.step.action),
            ahead(&ran.step, &run.staging),
            ran.cpu_ns as f64 / 1e6,
            ran.truth
        );
    }
    text
}

/// Grades the calls of `family` in `run` with `predict`.
pub(crate) fn grade(run: &Run, family: Family, predict: Predict<'_>) -> Result<(), Failure> {
    let graded: Vec<&Ran> = run
        .programs
        .iter()
        .flatten()
        .filter(|r| family.holds(&r.step.action) && r.foreseen())
        .collect();
    let wrong: Vec<(&Ran, Wait)> = graded
        .iter()
        .map(|r| (*r, predict(&r.step.call, &run.staging)))
        .filter(|(r, said)| *said != r.truth)
        .collect();
    let Some(&(first, said)) = wrong.first() else {
        return Ok(());
    };
    let (why, section) = rule(&first.step.action, &run.staging);
    Err(Failure::new(
        format!(
            "the right answer for each of the {} {} calls of the judge's {} programs",
            graded.len(),
            family.name(),
            run.programs.len()
        ),
        format!(
            "{} wrong; the first: program {}, call {}, {} ({}): you said `{said:?}`, but {}",
            wrong.len(),
            first.program,
            first.index,
            what(&first.step.action),
            ahead(&first.step, &run.staging),
            waited(first)
        ),
    )
    .detail(format!(
        "the rule: {why}; see {section}\n{}",
        listing(run, first)
    )))
}

/// Runs the programs (once per process) and grades `family` with the
/// learner's `predict`.
fn check(ctx: &Ctx, family: Family) -> Result<(), Failure> {
    let run = run(ctx)?;
    unforeseen_note(&run);
    grade(&run, family, &mut which_calls_wait::predict)
}

/// Prints the calls the model did not foresee (left out of every check),
/// for the judge's authors: none on the virtual GPU.
fn unforeseen_note(run: &Run) {
    for ran in run.programs.iter().flatten().filter(|r| !r.foreseen()) {
        println!(
            "note: program {} call {} ({}) was left out: the judge's model did not foresee its {:.3} ms",
            ran.program,
            ran.index,
            what(&ran.step.action),
            ran.cpu_ns as f64 / 1e6
        );
    }
}

pub(super) fn launches_records_and_queries_never_wait(ctx: &Ctx) -> Result<(), Failure> {
    check(ctx, Family::Queued)
}

pub(super) fn synchronize_waits_for_what_it_names(ctx: &Ctx) -> Result<(), Failure> {
    check(ctx, Family::Synchronize)
}

pub(super) fn a_raw_free_waits_for_the_device(ctx: &Ctx) -> Result<(), Failure> {
    check(ctx, Family::Free)
}

pub(super) fn copies_to_the_host_wait_for_their_stream_unless_pinned(
    ctx: &Ctx,
) -> Result<(), Failure> {
    check(ctx, Family::ToHost)
}

pub(super) fn copies_from_the_host_follow_the_staging_rules(ctx: &Ctx) -> Result<(), Failure> {
    check(ctx, Family::FromHost)
}
