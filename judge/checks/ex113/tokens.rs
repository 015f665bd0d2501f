//! The tokens: every batch's `next` equals eager decoding, and when it
//! does not, the static buffers the judge read after the step name the
//! cause (a batch never copied in, padding that began inside the batch, a
//! bucket too small, rows never copied out, a race).

use super::support::{
    BLANK, PAD_WORDS, Run, SECTION, Step, UNWRITTEN, describe, is_fill, padding_inside, run,
};
use gpu::{OpKind, RaceReport, TraceEntry};
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str = "each batch's `next` to hold the tokens the decoder chooses after its `tokens` (eager decoding), for every batch of the workload, and no race";

pub(super) fn tokens_equal_eager_decoding(ctx: &Ctx) -> Result<(), Failure> {
    let run = run(ctx)?;
    let wrong = (0..run.steps.len()).find(|&s| run.steps[s].next != run.eager(s));
    match (wrong, run.races.first()) {
        (None, None) => Ok(()),
        (None, Some(race)) => Err(right_by_timing(race)),
        (Some(_), Some(race)) => Err(unordered(race)),
        (Some(s), None) => Err(diagnose(&run, s)),
    }
}

/// Why step `s` (the first wrong one) wrote the wrong tokens, no race
/// having been found.
fn diagnose(run: &Run, s: usize) -> Failure {
    let step = &run.steps[s];
    let n = step.rows();
    let want = run.eager(s);
    let fail = |actual: String, at: Option<&TraceEntry>| {
        let failure = Failure::new(
            EXPECTED,
            format!("step {s}, a batch of {n} rows: {actual}; see {SECTION}"),
        );
        match at {
            Some(e) => failure.at(e.site),
            None => failure,
        }
    };
    let replay = step.calls.iter().find(|e| e.op == OpKind::GraphLaunch);
    let got = &step.next;
    if got.iter().all(|&t| t == UNWRITTEN) {
        return fail(
            "`next` was never written: the graph writes the static output, never the caller's `next`. Copy rows `0..n` of the static output into `next` after the graph launch, on the same stream".into(),
            replay,
        );
    }
    if let Some((copy, launch)) = copied_out_before_the_launch(step) {
        return fail(
            format!(
                "`next` held {BLANK}, the blank the judge wrote over the static output before the step, in every row: the copy out ({}) was queued before the graph launch ({}), so it copied the static output before the graph wrote it. Stream order is call order: queue the copy out after `launch`",
                describe(copy),
                describe(launch)
            ),
            Some(copy),
        );
    }
    let computed = step.computed();
    if computed < n && got[computed..].iter().all(|&t| t == BLANK) {
        return fail(
            format!(
                "rows 0..{computed} are right and rows {computed}..{n} were never computed: the graph launched computes {computed} rows, a bucket smaller than the batch, so its last rows are whatever the static output held. Pad up, never down: the smallest bucket of at least {n} rows"
            ),
            replay,
        );
    }
    if let Some(k) = padding_inside(step) {
        let fill = step.calls.iter().find(|e| is_fill(e));
        return fail(
            format!(
                "rows {k}..{n} came out as the tokens after {PAD_WORDS}: the static input held the padding there when the graph ran, so the padding began at row {k}, inside the batch, and wrote over its last {} row(s). The padding is rows `n..bucket`, from right after the batch's last row",
                n - k
            ),
            fill.or(replay),
        );
    }
    if step.input[..n] != step.tokens[..]
        && got[..] == run.decoder.reference_step(&step.input[..n])[..]
    {
        let copy_in = step
            .calls
            .iter()
            .find(|e| e.op == OpKind::CopyDeviceToDevice);
        return fail(
            format!(
                "{got:?}, the tokens after {:?}, which the static input held: the graph decoded from rows the batch was never copied into. It reads the static input, never `tokens`: copy `tokens` into rows `0..n` of it before the launch",
                &step.input[..n]
            ),
            copy_in.or(replay),
        );
    }
    fail(
        format!(
            "{got:?} where eager decoding chooses {want:?} after {:?}",
            step.tokens
        ),
        replay,
    )
}

/// The copy out and the graph launch, when every row of `next` holds the
/// judge's blank and the step's last copy between two device buffers was
/// queued before its graph launch.
fn copied_out_before_the_launch(step: &Step) -> Option<(&TraceEntry, &TraceEntry)> {
    if step.next.is_empty() || step.next.iter().any(|&t| t != BLANK) {
        return None;
    }
    let launch = step
        .calls
        .iter()
        .position(|e| e.op == OpKind::GraphLaunch)?;
    let last_copy = step
        .calls
        .iter()
        .rposition(|e| e.op == OpKind::CopyDeviceToDevice)?;
    // The copy in comes first; a copy out is a later one.
    let first_copy = step
        .calls
        .iter()
        .position(|e| e.op == OpKind::CopyDeviceToDevice)?;
    (first_copy < last_copy && last_copy < launch)
        .then(|| (&step.calls[last_copy], &step.calls[launch]))
}

/// The cause a race report names, in words.
fn race_cause(race: &RaceReport) -> String {
    format!(
        "two operations on the same memory that nothing orders, {} at {} and {} at {}: the graphs launch on the stream they were captured on, the one given to `new`, so the copy in, the padding and the copy out belong on that stream too",
        race.previous.what, race.previous.site, race.current.what, race.current.site
    )
}

/// A wrong result with a race behind it: the race is the cause.
fn unordered(race: &RaceReport) -> Failure {
    Failure::new(
        EXPECTED,
        format!(
            "the tokens are wrong, and the race checker says why: {}",
            race_cause(race)
        ),
    )
    .at(race.current.site)
    .detail(race.to_string())
}

/// The tokens came out right, but only because the GPU was quick.
fn right_by_timing(race: &RaceReport) -> Failure {
    Failure::new(
        EXPECTED,
        format!(
            "the tokens came out right in this run, but only because the GPU happened to finish in time; the race checker found {}",
            race_cause(race)
        ),
    )
    .at(race.current.site)
    .detail(race.to_string())
}
