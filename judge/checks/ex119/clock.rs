//! The same step with the GPU's times read a little late: every GPU span
//! shifted later by a twentieth of the step's shortest wait. A real GPU's
//! times are placed on the CPU's clock only to within a few microseconds,
//! so the end of the work a call waited for can read a little after the
//! call's return; the waits do not change. An answer that drops a wait
//! allows no end after the call's return.

use super::runner::{Call, Run, Traced};
use super::timeline::ended_in;
use super::verdict::{Waits, asked, chosen, detail, entry};
use super::words::{WAITS, at, call, kind_of, lasting};
use find_the_wait::Wait;
use gpu::Trace;
use judge_harness::{Ctx, Failure};

/// The shift of a step's GPU spans, as a part of its shortest wait: well
/// under the tenth a wait's GPU end may read after its return.
pub(crate) const PART: u64 = 20;
/// [`PART`] in words, as a fraction.
const PART_WORD: &str = "twentieth";

/// How much later the judge reads `step`'s GPU spans: a [`PART`] of the
/// CPU time of its shortest graded wait; 0 when it has none.
pub(crate) fn shift(step: &Traced) -> u64 {
    step.waits()
        .map(|c| entry(step, c.seq).cpu_ns())
        .min()
        .map_or(0, |ns| ns / PART)
}

/// `trace` with every GPU span `by` nanoseconds later.
pub(crate) fn shifted(trace: &Trace, by: u64) -> Trace {
    let mut late = trace.clone();
    for gpu in late.entries.iter_mut().filter_map(|e| e.gpu.as_mut()) {
        (gpu.start_ns, gpu.end_ns) = (gpu.start_ns + by, gpu.end_ns + by);
    }
    late
}

/// `step` with its GPU spans read late, as the re-ask hands it over.
pub(crate) fn read_late(step: &Traced) -> Traced {
    Traced {
        trace: shifted(&step.trace, shift(step)),
        ..step.clone()
    }
}

/// Whether `call`, graded in its step, is graded in `late` too: the
/// judge's own reading of the late trace still gives it its truth (a
/// call that can wait covers a GPU end as it did). A real GPU's step can
/// leave a few out (a GPU end read past a wait's return lands in the
/// quick call after it); the virtual GPU's rarely does.
pub(crate) fn graded(late: &Traced, call: &Call) -> bool {
    let entries = &late.trace.entries;
    let Some(e) = entries.iter().find(|e| e.seq == call.seq) else {
        return false;
    };
    if !call.foreseen {
        return false;
    }
    let covers = !ended_in(entries, e).is_empty();
    kind_of(e.op).is_none() || call.waits.is_some() == covers
}

pub(super) fn same_waits_with_the_gpu_times_read_late(ctx: &Ctx) -> Result<(), Failure> {
    let (run, said) = asked(ctx)?;
    same_when_read_late(&run, &said, chosen())
}

/// `waits` answers each step with its GPU spans read late as it answered
/// the step itself (`said`), on every call graded in both.
pub(crate) fn same_when_read_late(
    run: &Run,
    said: &[Vec<Wait>],
    waits: Waits,
) -> Result<(), Failure> {
    for (step, mine) in run.steps.iter().zip(said) {
        let late = read_late(step);
        let other = waits(&late.trace);
        let counts = |w: &&Wait| late.call(w.seq).is_some_and(|c| graded(&late, c));
        let dropped = mine.iter().filter(counts).find(|w| !other.contains(w));
        let added = other.iter().filter(counts).find(|w| !mine.contains(w));
        let (w, actual) = match (dropped, added) {
            (Some(w), _) => (w, dropped_cause(step, &late, w)),
            (None, Some(w)) => (w, added_cause(step, &late, w)),
            (None, None) => continue,
        };
        return Err(Failure::new(
            "the same waits with the GPU's times read a few microseconds late",
            actual,
        )
        .detail(detail(&late, w.seq, &other, WAITS)));
    }
    Ok(())
}

/// The start of either message: how the step was read.
fn read_how(step: &Traced) -> String {
    format!(
        "with every GPU row of step {} read {} later (a {PART_WORD} of its shortest wait, as a GPU's times placed on the CPU's clock may read)",
        step.number,
        lasting(shift(step))
    )
}

/// Why the answers for `late` drop `w`, a wait of `step`.
fn dropped_cause(step: &Traced, late: &Traced, w: &Wait) -> String {
    let e = entry(late, w.seq);
    let end = ended_in(&late.trace.entries, e)
        .into_iter()
        .filter_map(|g| g.gpu.map(|s| (g, s.end_ns)))
        .max_by_key(|&(_, end)| end);
    let row = match end {
        Some((g, t)) if t > e.cpu_end_ns => format!(
            ": the GPU row it waited for ({}) now ends at {}, {} after the call returned at {}",
            call(g),
            at(late, t),
            lasting(t - e.cpu_end_ns),
            at(late, e.cpu_end_ns)
        ),
        _ => String::new(),
    };
    format!(
        "{}, you no longer report {} (`{:?}`), which you reported as the step was read{row}. The GPU's clock is placed on the CPU's only to within a few microseconds: allow an end a little after the call's return (a tenth of the call's time is ample), read against the call's own time, not a fixed number",
        read_how(step),
        call(e),
        w.kind
    )
}

/// Why the answers for `late` add `w`, a call of `step` that the answers
/// for the step itself left out.
fn added_cause(step: &Traced, late: &Traced, w: &Wait) -> String {
    let e = entry(late, w.seq);
    format!(
        "{}, you also report {} (`{:?}`), which you did not report as the step was read. Reading the GPU's times a little late changes no wait: the GPU's clock is placed on the CPU's only to within a few microseconds, so allow an end a little after the call's return (a tenth of the call's time is ample), and no more",
        read_how(step),
        call(e),
        w.kind
    )
}
