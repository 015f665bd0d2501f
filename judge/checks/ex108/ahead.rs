//! The gate: with a long spin queued ahead of `generate`, the CPU launches
//! every step before the GPU has started the first. A wait anywhere before
//! the last launch costs the whole gate, a clean loop tens of microseconds,
//! so half the gate never flakes, on the virtual GPU or a real one.

use super::steps::launch_count;
use super::support::{PROMPTS, STEPS, chosen, describe, launches, ms, setup};
use gpu::{CallSite, TraceEntry};
use judge_harness::gaps::longest_gap;
use judge_harness::polling::polling_loops;
use judge_harness::{Ctx, Failure};
use std::time::Duration;

/// The gate: a spin this long queued ahead of the loop.
const GATE: Duration = Duration::from_millis(40);

pub(super) fn the_cpu_runs_ahead_of_the_gpu(ctx: &Ctx) -> Result<(), Failure> {
    let (device, stream, decoder) = setup(ctx)?;
    stream.spin(GATE)?;
    let start = device.now().as_nanos() as u64;
    chosen()(&stream, &decoder, &PROMPTS, STEPS)?;
    behind_the_gate(&device.trace().entries, start)
}

/// The check on the trace of one run behind the gate, begun at `start` (ns).
pub(super) fn behind_the_gate(entries: &[TraceEntry], start: u64) -> Result<(), Failure> {
    let at = launches(entries);
    if at.len() != STEPS {
        return Err(launch_count(at.len()));
    }
    let last = &entries[at[STEPS - 1]];
    let took = last.cpu_end_ns.saturating_sub(start);
    let gate = GATE.as_nanos() as u64;
    if took < gate / 2 {
        return Ok(());
    }
    let expected = format!(
        "with a {} spin queued ahead, all {STEPS} steps launched in under {}: the CPU ahead of the GPU by every step",
        ms(gate as f64),
        ms(gate as f64 / 2.0)
    );
    let before = &entries[..at[STEPS - 1]];
    let (cause, site) = why(before, start, last.cpu_start_ns);
    let actual = format!(
        "the last step was launched {} after `generate` began{}: {cause}",
        ms(took as f64),
        finished_by(entries, &at, last.cpu_start_ns),
    );
    Err(Failure::new(expected, actual).at(site.unwrap_or(last.site)))
}

/// ", when the GPU had finished k of the steps", where the trace knows.
fn finished_by(entries: &[TraceEntry], at: &[usize], when: u64) -> String {
    let spans: Vec<_> = at.iter().filter_map(|&i| entries[i].gpu).collect();
    if spans.len() != at.len() {
        return String::new();
    }
    let done = spans.iter().filter(|g| g.end_ns <= when).count();
    format!(
        ", when the GPU had already finished {done} of them: the CPU was {} step(s) ahead, not {STEPS}",
        STEPS - done
    )
}

/// Where the time before the last launch (`start..end`, ns) went, and the
/// line responsible: a call that waited a good part of the gate, else a
/// loop of queries, else time outside every call.
fn why(before: &[TraceEntry], start: u64, end: u64) -> (String, Option<CallSite>) {
    let since: Vec<&TraceEntry> = before.iter().filter(|e| e.cpu_start_ns >= start).collect();
    let waited = since
        .iter()
        .filter(|e| e.blocking.is_some())
        .max_by_key(|e| e.cpu_ns())
        .filter(|e| e.cpu_ns() >= GATE.as_nanos() as u64 / 4);
    if let Some(e) = waited {
        let cause = format!(
            "the CPU waited for the GPU in {}; {}. Before the end nothing needs the GPU to be done",
            describe(e),
            e.blocking.map(|b| b.explain()).unwrap_or_default()
        );
        return (cause, Some(e.site));
    }
    if let Some(lp) = polling_loops(since.iter().copied()).first() {
        let cause = format!(
            "`{}` was called {} times from one line before the last launch: a loop that polls until the GPU is done waits for it as surely as a synchronize",
            lp.first.name, lp.times
        );
        return (cause, Some(lp.first.site));
    }
    match longest_gap(since.iter().copied(), start, end) {
        Some(gap) => (gap.describe(), gap.before.or(gap.after).map(|e| e.site)),
        None => (
            format!(
                "the CPU spent the time in {} calls into the `gpu` crate before the last launch",
                since.len()
            ),
            None,
        ),
    }
}
