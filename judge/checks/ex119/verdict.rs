//! The checks: the learner's waits of each step against the truth. A
//! failure names the call, when the CPU was in it against the GPU's work,
//! the cause the judge sees in the answer, and the section about it, with
//! the step around the call. (Just over 400 lines: the four checks share
//! the reading of an answer against the truth, kept in one place.)

use super::runner::{Call, Run, Traced, run};
use super::timeline::{ended_in, last_end_before, running_at};
use super::words::{
    RUNNING, WAITS, at, call, cpu_row, kind_of, lasting, listing, rule, what_ended,
};
use find_the_wait::Wait;
use gpu::{OpKind, Trace, TraceEntry};
use judge_harness::{Ctx, Failure};

/// A `waits` with the exercise's signature.
pub(crate) type Waits = fn(&Trace) -> Vec<Wait>;

/// The `waits` the checks ask: the learner's, unless a test of the suite
/// put another in its place.
pub(super) fn chosen() -> Waits {
    #[cfg(test)]
    if let Some(other) = super::tests::replacement() {
        return other;
    }
    find_the_wait::waits
}

/// The answers of `waits` for each step of `run`.
pub(crate) fn answers(run: &Run, waits: Waits) -> Vec<Vec<Wait>> {
    run.steps.iter().map(|s| waits(&s.trace)).collect()
}

/// The run of `ctx` and the learner's answers for it.
pub(super) fn asked(ctx: &Ctx) -> Result<(std::rc::Rc<Run>, Vec<Vec<Wait>>), Failure> {
    let run = run(ctx)?;
    unforeseen_note(&run);
    let said = answers(&run, chosen());
    Ok((run, said))
}

/// Prints the calls the device did not run as built (left out of every
/// check), for the judge's authors: none on the virtual GPU.
fn unforeseen_note(run: &Run) {
    for step in &run.steps {
        for c in step.calls.iter().filter(|c| !c.foreseen) {
            println!(
                "note: step {} seq {} ({:?}) was left out: the device did not run it as the judge built it",
                step.number, c.seq, c.action
            );
        }
    }
}

/// The entry of `seq`, one of `step`'s.
pub(super) fn entry(step: &Traced, seq: u64) -> &TraceEntry {
    step.trace
        .entries
        .iter()
        .find(|e| e.seq == seq)
        .expect("a call of the step has its entry")
}

/// The first and last seq of `step`.
fn bounds(step: &Traced) -> (u64, u64) {
    let seq = |e: Option<&TraceEntry>| e.map_or(0, |e| e.seq);
    (
        seq(step.trace.entries.first()),
        seq(step.trace.entries.last()),
    )
}

/// Where to read more, after a listing of `step` around `seq`.
pub(super) fn detail(step: &Traced, seq: u64, said: &[Wait], section: &str) -> String {
    format!(
        "{}see {section}; `judge run 119 --timeline t.svg` draws the steps ({RUNNING})",
        listing(step, seq, said)
    )
}

pub(super) fn finds_every_wait(ctx: &Ctx) -> Result<(), Failure> {
    let (run, said) = asked(ctx)?;
    found(&run, &said)
}

/// Every wait of `run` is among the answers.
pub(crate) fn found(run: &Run, said: &[Vec<Wait>]) -> Result<(), Failure> {
    let missed: Vec<(&Traced, &Call)> = run
        .steps
        .iter()
        .zip(said)
        .flat_map(|(step, said)| {
            step.waits()
                .filter(|c| !said.iter().any(|w| w.seq == c.seq))
                .map(move |c| (step, c))
        })
        .collect();
    let Some(&(step, first)) = missed.first() else {
        return Ok(());
    };
    let total: usize = run.steps.iter().map(|s| s.waits().count()).sum();
    let mine = &said[step.number - 1];
    Err(Failure::new(
        format!(
            "every call of the judge's {} steps in which the CPU waited for the GPU ({total} calls)",
            run.steps.len()
        ),
        format!(
            "{} of them missed. {}",
            missed.len(),
            missed_cause(run, said, step, first)
        ),
    )
    .detail(detail(step, first.seq, mine, WAITS)))
}

/// Why the answers miss `missed`, a wait of `step`.
fn missed_cause(run: &Run, said: &[Vec<Wait>], step: &Traced, missed: &Call) -> String {
    let e = entry(step, missed.seq);
    let mine = &said[step.number - 1];
    let (first, _) = bounds(step);
    let base = format!("{}: {}, {}", call(e), cpu_row(step, e), what_ended(step, e));
    if said.iter().all(Vec::is_empty) {
        return format!(
            "You found no wait in any step; the first is {base}. The judge's traces, like a real profile, do not say which calls can block (`blocking` is `None` on every entry): read each wait from the times, a call whose CPU row lasts until a GPU row that began before it ends"
        );
    }
    if only_the_first(run, said) {
        return format!(
            "You report at most one wait per step, its first; you missed a later wait of step {}, {base}. Keep looking after the first wait: a `find`, or a `return` or `break` at the first match, stops there",
            step.number
        );
    }
    if let Some(w) = mine
        .iter()
        .find(|w| w.seq < first && w.seq + first == missed.seq)
    {
        return format!(
            "You reported {}, the position in `trace.entries` of the wait at {}, not its `seq`: a position counts from the step's first entry, a `seq` from the device's first call (the step's entries start at seq {first}). Report `entry.seq`",
            w.seq,
            call(e)
        );
    }
    let waited_for = ended_in(&step.trace.entries, e);
    if let Some(g) = waited_for
        .iter()
        .find(|g| mine.iter().any(|w| w.seq == g.seq))
    {
        return format!(
            "You reported {}, the GPU work the CPU waited for, not the call that waited: {base}. A wait is on the CPU's row: report the call whose CPU time lasts until the GPU row ends",
            call(g)
        );
    }
    if mine.iter().any(|w| w.seq + 1 == missed.seq) {
        return format!(
            "You reported seq {}, the call just before the wait, not the wait: {base}. Report the call that waited, by its own `seq`",
            missed.seq - 1
        );
    }
    let kind = missed.waits.expect("a wait has a kind");
    format!("You missed {base}. {}", upper(rule(kind)))
}

/// Whether every step's answers are at most its first wait, and some step
/// has more than one.
fn only_the_first(run: &Run, said: &[Vec<Wait>]) -> bool {
    let more = run.steps.iter().any(|s| s.waits().count() > 1);
    let firsts = run.steps.iter().zip(said).all(|(step, said)| {
        let first = step.waits().next().map(|c| c.seq);
        said.iter().all(|w| Some(w.seq) == first)
    });
    more && firsts
}

/// `text` with its first letter upper case.
fn upper(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or(String::new(), |c| c.to_uppercase().chain(chars).collect())
}

pub(super) fn reports_no_call_that_did_not_wait(ctx: &Ctx) -> Result<(), Failure> {
    let (run, said) = asked(ctx)?;
    only_waits(&run, &said)
}

/// No answer is a call in which the CPU did not wait.
pub(crate) fn only_waits(run: &Run, said: &[Vec<Wait>]) -> Result<(), Failure> {
    for (step, mine) in run.steps.iter().zip(said) {
        for w in mine {
            let wrong = match step.call(w.seq) {
                None => true,
                Some(c) => c.foreseen && c.waits.is_none(),
            };
            if wrong {
                return Err(Failure::new(
                    "only calls in which the CPU waited for the GPU",
                    not_a_wait(step, w),
                )
                .detail(detail(step, w.seq, mine, WAITS)));
            }
        }
    }
    Ok(())
}

/// Why `w`, an answer for `step`, is no wait.
fn not_a_wait(step: &Traced, w: &Wait) -> String {
    let (first, last) = bounds(step);
    if step.call(w.seq).is_none() {
        let position = match step.call(w.seq + first) {
            Some(c) if w.seq < first && c.waits.is_some() => format!(
                " It is the position in `trace.entries` of the wait at seq {}: report `entry.seq`, not a position",
                c.seq
            ),
            _ => " Report each wait by its entry's `seq`".into(),
        };
        return format!(
            "you reported seq {}, which is no call of step {} (its entries are seq {first} to {last}).{position}",
            w.seq, step.number
        );
    }
    let e = entry(step, w.seq);
    let base = format!("you reported {}: {}", call(e), cpu_row(step, e));
    if e.op == OpKind::HostWork {
        return format!(
            "{base}. That is host work, the CPU's own work (`host_work`), not a call into the runtime: it waits for nothing, even when GPU work ends while it runs. Only a call into the runtime waits for the GPU"
        );
    }
    if kind_of(e.op).is_some() && !e.name.contains("pinned") {
        return format!("{base}. {}", no_wait_cause(step, e));
    }
    if let Some(waiter) = waiter_of(step, e) {
        return format!(
            "{base}. It is the GPU work the CPU waited for in {}: the wait is that call, on the CPU's row, not the work on the GPU's",
            call(waiter)
        );
    }
    if let Some(next) = step.waits().find(|c| c.seq == e.seq + 1) {
        return format!(
            "{base}. It is the call just before the wait, {}: report the call that waited, by its own `seq`",
            call(entry(step, next.seq))
        );
    }
    format!("{base}. {}", no_wait_cause(step, e))
}

/// The wait of `step` in which the CPU waited for `e`'s GPU work, if any.
fn waiter_of<'s>(step: &'s Traced, e: &TraceEntry) -> Option<&'s TraceEntry> {
    step.waits().map(|c| entry(step, c.seq)).find(|w| {
        ended_in(&step.trace.entries, w)
            .iter()
            .any(|g| g.seq == e.seq)
    })
}

/// Why the CPU did not wait in `e`, a call of `step`, from the timeline.
fn no_wait_cause(step: &Traced, e: &TraceEntry) -> String {
    let entries = &step.trace.entries;
    if kind_of(e.op).is_none() {
        return format!(
            "A `{}` never waits for the GPU: it does its own work, however long, and returns. A call is a wait only when its CPU row lasts until GPU work queued before it ends",
            e.name
        );
    }
    if e.name.contains("pinned") {
        return "A copy to or from pinned memory is queued like a launch: a copy engine reads or writes the memory later, and the call returns at once".into();
    }
    let own = match e.gpu {
        Some(s) if s.end_ns <= e.cpu_end_ns => {
            " The only GPU work that ended while it ran was its own (its `gpu` span): a call's own copy is no wait for earlier work."
        }
        _ => "",
    };
    let running = running_at(entries, e);
    if let Some(busy) = running.iter().max_by_key(|g| g.gpu.map(|s| s.end_ns)) {
        let end = busy.gpu.map_or(0, |s| s.end_ns);
        let first = running.iter().filter_map(|g| g.gpu).map(|s| s.end_ns).min();
        let after = first.unwrap_or(end).saturating_sub(e.cpu_end_ns);
        let soon = if after <= SOON * e.cpu_ns() {
            format!(
                ". GPU work ended only {} after the call returned, but after it: allow an end a little after the return (a tenth of the call's time is ample), not a few times the call's own time",
                lasting(after)
            )
        } else {
            String::new()
        };
        return format!(
            "The GPU was busy when it began ({} ran until {end}), but the call returned {} before that work ended: it did not wait for it. {}{soon}{own}",
            call(busy),
            lasting(end.saturating_sub(e.cpu_end_ns)),
            busy_but_no_wait(e),
            end = at(step, end),
            own = match own {
                "" => String::new(),
                own => format!(".{}", own.trim_end_matches('.')),
            }
        );
    }
    let done = last_end_before(entries, e).map_or("before the step began".into(), |t| {
        if t == e.cpu_start_ns {
            return format!(
                "at {}, just as the call began: work that ends when a call begins is done before it, so the call waited for none of it (the end must come after the call's start)",
                at(step, t)
            );
        }
        format!(
            "at {}, {} before the call began",
            at(step, t),
            lasting(e.cpu_start_ns.saturating_sub(t))
        )
    });
    format!(
        "It can wait, but it found the GPU done: the last GPU work queued before it ended {done}.{own} A call that finds the GPU done waits for nothing, however long its own work takes"
    )
}

/// How many times a call's own time after its return a GPU end may come
/// and still be named too soon after it to be the end of a wait.
const SOON: u64 = 10;

/// Why a call that can wait did not, with the GPU busy elsewhere.
fn busy_but_no_wait(e: &TraceEntry) -> &'static str {
    match e.op {
        OpKind::StreamSynchronize | OpKind::CopyDeviceToHost => {
            "It waits only for its own stream, and its stream was idle: the busy work was on another stream"
        }
        OpKind::CopyHostToDevice => {
            "A small copy from pageable memory travels in the command stream, and the call returns at once"
        }
        _ => "The work it waits for was done",
    }
}

pub(super) fn names_each_wait(ctx: &Ctx) -> Result<(), Failure> {
    let (run, said) = asked(ctx)?;
    kinds(&run, &said)
}

/// Each answer that is a wait names its kind.
pub(crate) fn kinds(run: &Run, said: &[Vec<Wait>]) -> Result<(), Failure> {
    for (step, mine) in run.steps.iter().zip(said) {
        for w in mine {
            let Some(truth) = step
                .call(w.seq)
                .filter(|c| c.foreseen)
                .and_then(|c| c.waits)
            else {
                continue;
            };
            if w.kind != truth {
                let e = entry(step, w.seq);
                return Err(Failure::new(
                    "each wait named by what the call is",
                    format!(
                        "you named `{:?}` the wait in {}, but {}",
                        w.kind,
                        call(e),
                        rule(truth)
                    ),
                )
                .detail(detail(step, w.seq, mine, WAITS)));
            }
        }
    }
    Ok(())
}

pub(super) fn each_wait_once_in_trace_order(ctx: &Ctx) -> Result<(), Failure> {
    let (run, said) = asked(ctx)?;
    in_order(&run, &said)
}

/// Each step's answers are in trace order, each call once.
pub(crate) fn in_order(run: &Run, said: &[Vec<Wait>]) -> Result<(), Failure> {
    for (step, mine) in run.steps.iter().zip(said) {
        let Some(pair) = mine.windows(2).find(|p| p[0].seq >= p[1].seq) else {
            continue;
        };
        let (a, b) = (pair[0].seq, pair[1].seq);
        let actual = if a == b {
            let times = mine.iter().filter(|w| w.seq == a).count();
            format!(
                "in step {} you reported seq {a} {times} times: report each call once, however many GPU rows end while the CPU waits in it",
                step.number
            )
        } else {
            format!(
                "in step {} you reported seq {a} before seq {b}: report the waits in trace order, by `seq`",
                step.number
            )
        };
        return Err(
            Failure::new("each wait once, in trace order", actual).detail(detail(
                step,
                a,
                mine,
                super::words::ROWS,
            )),
        );
    }
    Ok(())
}
