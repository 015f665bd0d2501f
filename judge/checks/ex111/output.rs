//! The layer's output: `2 * x + 1` of the uploaded batch, with no race; when
//! it is not, the race checker's report or the value found names the cause.

use super::support::{Run, UNWRITTEN, layer, run};
use gpu::RaceReport;
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str = "`y` read on the consumer stream after `handoff` to be `2 * x + 1` of the uploaded batch, every element, and no race";

pub(super) fn output_is_the_layer_of_the_upload(ctx: &Ctx) -> Result<(), Failure> {
    let run = run(ctx)?;
    ctx.save_timeline(&run.device);
    outputs(&run)
}

/// The check on one run.
pub(super) fn outputs(run: &Run) -> Result<(), Failure> {
    let wrong = (0..run.y.len()).find(|&i| run.y[i] != layer(run.batch[i]));
    match (wrong, run.races.first()) {
        (None, None) => Ok(()),
        (None, Some(race)) => Err(right_by_timing(run, race)),
        (Some(i), Some(race)) => Err(unordered(run, i, race)),
        (Some(i), None) => Err(diagnose(run, i)),
    }
}

/// What element `i` of `y` holds, and where that value comes from.
fn found(run: &Run, i: usize) -> String {
    let (got, x) = (run.y[i], run.batch[i]);
    if got == UNWRITTEN {
        format!(
            "`y[{i}]` is {got}, what it held before the call: the layer had not written it when `y` was read"
        )
    } else if got == layer(UNWRITTEN) {
        format!(
            "`y[{i}]` is {got}, the layer of {UNWRITTEN}, what `x` held before the upload, where the layer of {x} is {}: the layer read `x` before the upload wrote it",
            layer(x)
        )
    } else {
        format!("`y[{i}]` is {got} where the layer of {x} is {}", layer(x))
    }
}

/// A wrong output and no race: the value says what happened.
fn diagnose(run: &Run, i: usize) -> Failure {
    Failure::new(EXPECTED, found(run, i))
}

/// The cause a race report names, in words.
fn race_cause(race: &RaceReport) -> String {
    format!(
        "{} at {} and {} at {} touch the same memory on two streams, and nothing orders them on the GPU: work on one stream that reads what another wrote starts only after a `wait_event` on its own stream for an event recorded on the writer's stream after the write",
        race.previous.what, race.previous.site, race.current.what, race.current.site
    )
}

/// Why the race happened: the call list's order names the mistake (the
/// wait on the wrong stream, the event recorded before the upload, …)
/// when it shows one; else the race checker's own words.
fn why_the_race(run: &Run, race: &RaceReport) -> (String, gpu::CallSite) {
    match super::order::ordered(run) {
        Err(order) => (
            format!(
                "the race checker found the upload and the layer unordered on two streams, and the call list says why: {}",
                order.actual
            ),
            order.site.unwrap_or(race.current.site),
        ),
        Ok(()) => (
            format!("the race checker says why: {}", race_cause(race)),
            race.current.site,
        ),
    }
}

/// A wrong output with a race behind it: the race is the cause.
fn unordered(run: &Run, i: usize, race: &RaceReport) -> Failure {
    let (cause, site) = why_the_race(run, race);
    Failure::new(EXPECTED, format!("{}; {cause}", found(run, i)))
        .at(site)
        .detail(run.name_streams(&race.to_string()))
}

/// The output came out right, but only because the GPU was quick.
fn right_by_timing(run: &Run, race: &RaceReport) -> Failure {
    let (cause, site) = why_the_race(run, race);
    Failure::new(
        EXPECTED,
        format!(
            "`y` came out right in this run, but only because the GPU happened to finish in time; {cause}"
        ),
    )
    .at(site)
    .detail(run.name_streams(&race.to_string()))
}
