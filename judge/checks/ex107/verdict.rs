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
    check(ctx, Family::Queued)?;
    queued_edges(&run(ctx)?.staging, &mut which_calls_wait::predict)
}

/// Calls that only queue, with everything ahead of them busy: situations
/// the programs leave out (they launch only on idle streams and record
/// only events that have completed, where the model can foresee every
/// backend), graded by the rule alone (a call that only puts work or a
/// marker in a queue returns at once, whatever is queued ahead of it).
pub(crate) fn queued_edges(staging: &Staging, predict: Predict<'_>) -> Result<(), Failure> {
    use which_calls_wait::{Ahead, Op};
    let busy = Ahead {
        stream_busy: true,
        event_pending: true,
        device_busy: true,
        staging_slots_in_use: 0,
    };
    for (op, what) in [
        (
            Op::Launch,
            "a kernel launch on a stream still running a long kernel",
        ),
        (
            Op::GraphLaunch,
            "a graph launch on a stream still running a long kernel: it queues the whole graph with one call and returns",
        ),
        (
            Op::EventRecord,
            "recording again an event still pending: it moves the marker to the end of the queue and returns, without waiting for the old one",
        ),
        (
            Op::StreamWaitEvent,
            "`wait_event` for a pending event: the GPU waits, not the CPU",
        ),
        (
            Op::EventQuery,
            "a query of a pending event: it answers no and returns",
        ),
    ] {
        let said = predict(&Call { op, ahead: busy }, staging);
        if said != Wait::Nothing {
            return Err(Failure::new(
                format!("`Nothing` for {what}"),
                format!("you said `{said:?}`"),
            )
            .detail(format!(
                "the rule: a call that only queues work or a marker returns at once, whatever is queued ahead of it ({what}); see hidden-syncs.md#cpu-waits-and-gpu-waits"
            )));
        }
    }
    Ok(())
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
    check(ctx, Family::FromHost)?;
    edges(&run(ctx)?.staging, &mut which_calls_wait::predict)
}

/// The sizes at the edges of the staging rules, which the programs' sizes
/// (drawn well inside each class) never hit: a pageable upload of exactly
/// `inline_bytes` and one byte more, of exactly `slot_bytes` and one byte
/// more, on a busy stream with every slot free and with every slot in use.
/// What the rules say of each (the statement: "at most `inline_bytes`", "a
/// slot holds `slot_bytes`"), not measured: the programs measured the rules.
pub(crate) fn edges(staging: &Staging, predict: Predict<'_>) -> Result<(), Failure> {
    use which_calls_wait::{Ahead, Memory, Op};
    let (inline, slot) = (staging.inline_bytes, staging.slot_bytes);
    for in_use in [0, staging.slots] {
        let full = in_use >= staging.slots;
        let staged = if full {
            Wait::StagingSlot
        } else {
            Wait::Nothing
        };
        for (bytes, truth, class) in [
            (
                inline,
                Wait::Nothing,
                "at most `inline_bytes`: it travels in the command stream",
            ),
            (
                inline + 1,
                staged,
                "over `inline_bytes` and at most `slot_bytes`: it takes a slot, waiting for one when every slot is in use",
            ),
            (
                slot,
                staged,
                "exactly `slot_bytes`: it fits a slot, so it takes one, waiting for one when every slot is in use",
            ),
            (
                slot + 1,
                Wait::Stream,
                "over `slot_bytes`: it fits no slot, so it waits for its stream",
            ),
        ] {
            let call = Call {
                op: Op::Copy {
                    direction: Direction::HostToDevice,
                    memory: Memory::Pageable,
                    bytes,
                },
                ahead: Ahead {
                    stream_busy: true,
                    event_pending: false,
                    device_busy: true,
                    staging_slots_in_use: in_use,
                },
            };
            let said = predict(&call, staging);
            if said != truth {
                return Err(Failure::new(
                    format!(
                        "`{truth:?}` for a pageable copy to the device of exactly {bytes} bytes on a busy stream with {in_use} of {} staging slots in use",
                        staging.slots
                    ),
                    format!("you said `{said:?}`"),
                )
                .detail(format!(
                    "the rule at the edge: a copy of {class} (inline_bytes = {inline}, slot_bytes = {slot}); see hidden-syncs.md#pageable-copies"
                )));
            }
        }
    }
    Ok(())
}
