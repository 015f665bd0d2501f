//! The gate: with a long spin queued on the stream after `new`, the CPU
//! returns from every step before the GPU has started the first. A wait
//! anywhere in a step costs the rest of the spin, a clean step tens of
//! microseconds, so half the spin never flakes, on the virtual GPU or a
//! real one.

use super::support::{GATE, Run, STEPS, located, ms, run};
use gpu::{CallSite, TraceEntry};
use judge_harness::gaps::longest_gap;
use judge_harness::polling::polling_loops;
use judge_harness::{Ctx, Failure};

pub(super) fn the_cpu_runs_ahead_of_the_gpu(ctx: &Ctx) -> Result<(), Failure> {
    runs_ahead(&run(ctx)?)
}

/// The check on one run behind the gate.
pub(super) fn runs_ahead(run: &Run) -> Result<(), Failure> {
    let took = run.returned.saturating_sub(run.began);
    let gate = GATE.as_nanos() as u64;
    if took < gate / 2 {
        return Ok(());
    }
    let expected = format!(
        "with a {} spin queued ahead of the first step, all {STEPS} steps returned within {}: the CPU queues every step before the GPU reaches the first",
        ms(gate),
        ms(gate / 2)
    );
    let (cause, site) = why(run);
    let actual = format!(
        "the {STEPS} steps took {} of the CPU's time: {cause}",
        ms(took)
    );
    let failure = Failure::new(expected, actual);
    Err(match site {
        Some(site) => failure.at(site),
        None => failure,
    })
}

/// Where the steps' time went, and the line responsible: a call that waited
/// a good part of the spin, else a loop of queries, else time outside
/// every call.
fn why(run: &Run) -> (String, Option<CallSite>) {
    let calls: Vec<(usize, &TraceEntry)> = run
        .steps
        .iter()
        .enumerate()
        .flat_map(|(t, s)| s.iter().map(move |e| (t, e)))
        .collect();
    let waited = run
        .steps
        .iter()
        .enumerate()
        .flat_map(|(t, s)| s.iter().enumerate().map(move |(i, e)| (t, i, e)))
        .filter(|(_, _, e)| e.blocking.is_some())
        .max_by_key(|(_, _, e)| e.cpu_ns())
        .filter(|(_, _, e)| e.cpu_ns() >= GATE.as_nanos() as u64 / 4);
    if let Some((t, i, e)) = waited {
        let (site, what) = located(&run.steps[t][..i], e);
        let cause = format!(
            "in step {t} the CPU waited {} in {what}, for the spin queued ahead: {}. Until the GPU reached it, the CPU queued nothing, and then the GPU waited for the CPU",
            ms(e.cpu_ns()),
            e.blocking.map(|b| b.explain()).unwrap_or_default()
        );
        return (cause, Some(site));
    }
    if let Some(lp) = polling_loops(calls.iter().map(|(_, e)| *e)).first() {
        let cause = format!(
            "`{}` was called {} times from one line: a loop that polls until the GPU is done waits for it as surely as a synchronize",
            lp.first.name, lp.times
        );
        return (cause, Some(lp.first.site));
    }
    match longest_gap(calls.iter().map(|(_, e)| *e), run.began, run.returned) {
        Some(gap) => (gap.describe(), gap.before.or(gap.after).map(|e| e.site)),
        None => (
            format!(
                "the CPU spent the time in {} calls into the `gpu` crate",
                calls.len()
            ),
            None,
        ),
    }
}
