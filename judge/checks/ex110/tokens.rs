//! The tokens: every step's equal eager decoding, and when they do not, the
//! shape of the difference names the cause (a static input nothing wrote,
//! a step behind, a `next` never written, a read or write on another stream
//! that nothing orders).

use super::support::{BATCH, FRESH_STEP, PROMPTS, Run, STEPS, UNWRITTEN, run};
use gpu::{OpKind, RaceReport, TraceEntry};
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str = "row s + 1 of the history to hold the tokens the decoder chooses after the tokens step s is given (row s, or at step 6 new tokens, as a serving loop gives), for each of the 12 steps (eager decoding), and no race";

pub(super) fn tokens_equal_eager_decoding(ctx: &Ctx) -> Result<(), Failure> {
    let run = run(ctx)?;
    let want = eager(&run);
    let wrong = (1..=STEPS).find(|&s| run.row(s) != &want[s][..]);
    match (wrong, run.races.first()) {
        (None, None) => Ok(()),
        (None, Some(race)) => Err(right_by_timing(race)),
        (Some(_), Some(race)) => Err(unordered(race)),
        (Some(row), None) => Err(diagnose(&run, &want, row - 1)),
    }
}

/// Rows 0 to [`STEPS`] of eager decoding: the prompts, then each step's
/// choice after the tokens it is given (the row before, or at
/// [`FRESH_STEP`] the new tokens), on the decoder's CPU twin.
fn eager(run: &Run) -> Vec<Vec<i32>> {
    let mut rows = vec![PROMPTS.to_vec()];
    for s in 0..STEPS {
        let given = match s {
            FRESH_STEP => run.given(s).to_vec(),
            _ => rows[s].clone(),
        };
        rows.push(run.decoder.reference_step(&given));
    }
    rows
}

/// Why step `s` (the first wrong one) wrote the wrong tokens, no race
/// having been found.
fn diagnose(run: &Run, want: &[Vec<i32>], s: usize) -> Failure {
    let fail = |actual: String, at: Option<&TraceEntry>| {
        let failure = Failure::new(EXPECTED, format!("step {s}: {actual}"));
        match at {
            Some(e) => failure.at(e.site),
            None => failure,
        }
    };
    let replay = run.steps[s].iter().find(|e| e.op == OpKind::GraphLaunch);
    let got = run.row(s + 1);
    if run.row(0) != &PROMPTS[..] {
        let output = run.decoder.reference_step(&PROMPTS);
        let what = if run.row(0) == &output[..] {
            "the tokens the decoder chooses after them: the static output was copied into `tokens`, the step's input, instead of into `next`"
        } else {
            "other tokens: the step wrote into `tokens`, the step's input, which it only reads"
        };
        return fail(
            format!(
                "row 0 of the history, the prompts step 0 was given as `tokens`, now holds {:?}, {what}. `step(tokens, next)` reads `tokens` and puts the decoder's choice in `next`: copy the static output into `next` after the graph launch",
                run.row(0)
            ),
            replay,
        );
    }
    if let Some((k, begin)) = run.steps.iter().enumerate().find_map(|(k, calls)| {
        let begin = calls.iter().find(|e| e.op == OpKind::BeginCapture)?;
        Some((k, begin))
    }) && k < s
    {
        return fail(
            format!(
                "`next` was never written: the graph replayed is the one step {k} captured (at {}), on the `tokens` and `next` step {k} was given, and it replays on those two views, whatever a later step is given. Capture once, in `new`, on static buffers of your own; each step copies its `tokens` in and the static output out to its `next`",
                begin.site
            ),
            replay,
        );
    }
    if got.iter().all(|&t| t == UNWRITTEN) {
        return fail(
            "`next` was never written: the graph writes the static output it was captured with, never the caller's `next`. Copy the static output into `next` after the graph launch, on the same stream".into(),
            replay,
        );
    }
    let from_zeros = run.decoder.reference_step(&[0; BATCH]);
    if (s..STEPS).all(|k| run.row(k + 1) == &from_zeros[..]) {
        return fail(
            format!(
                "{got:?}, the tokens the decoder chooses after token 0, in every step from this one on: the graph decoded from a static input nothing wrote. It reads the buffer it was captured with, never `tokens` and never a buffer made later: copy `tokens` into the static input before each launch"
            ),
            replay,
        );
    }
    if behind(run) {
        return behind_by_one(run, s, got);
    }
    if s == FRESH_STEP && got == &run.decoder.reference_step(run.row(s))[..] {
        let copy_in = run.steps[s]
            .iter()
            .take_while(|e| e.op != OpKind::GraphLaunch)
            .find(|e| e.op == OpKind::CopyDeviceToDevice);
        return fail(
            format!(
                "{got:?}, the tokens the decoder chooses after {:?}, what step {} wrote into its `next` and the static output still held, not after the new tokens step {s} was given as `tokens`, {:?}: the step decoded its own last output instead of its `tokens`. Every earlier step was given the `next` of the step before, which hid it; a serving loop gives each step new tokens (the sampler's, a request that joins). Copy `tokens` into the static input before each launch",
                run.row(s),
                s - 1,
                run.given(s)
            ),
            copy_in.or(replay),
        );
    }
    if let Some(k) = (0..s).find(|&k| got == &run.decoder.reference_step(run.given(k))[..]) {
        return fail(
            format!(
                "{got:?}, the tokens the decoder chooses after row {k}, an earlier step's: the graph decoded from what its static input held before. Copy `tokens` into the static input before each launch"
            ),
            replay,
        );
    }
    fail(
        format!(
            "{got:?} where eager decoding chooses {:?} after {:?} (the rows before are right)",
            want[s + 1],
            run.given(s)
        ),
        replay,
    )
}

/// Every step wrote what the decoder chooses after the tokens of the step
/// before: the order of the step's copies around its launch says which
/// copy is on the wrong side of it.
fn behind_by_one(run: &Run, s: usize, got: &[i32]) -> Failure {
    let calls = &run.steps[s];
    let launch = calls
        .iter()
        .position(|e| e.op == OpKind::GraphLaunch)
        .unwrap_or(calls.len());
    let copies = |range: std::ops::Range<usize>| -> Vec<&TraceEntry> {
        calls[range]
            .iter()
            .filter(|e| e.op == OpKind::CopyDeviceToDevice)
            .collect()
    };
    let (before, after) = (copies(0..launch), copies(launch..calls.len()));
    let failure = |actual: String, at: Option<&TraceEntry>| {
        let failure = Failure::new(EXPECTED, format!("step {s}: {actual}"));
        match at.or(calls.get(launch)) {
            Some(e) => failure.at(e.site),
            None => failure,
        }
    };
    if before.is_empty() && after.len() >= 2 {
        return failure(
            format!(
                "{got:?}, and every step's `next` holds what the decoder chooses after the tokens of the step before (step 0's, after the zeros the static input held before anything was copied in): each step copies its `tokens` into the static input after the graph launch, so each replay decodes the tokens the step before copied in. Both copies come after the launch; the copy in belongs before it: copy `tokens` in, launch, then copy the static output out"
            ),
            after.first().copied(),
        );
    }
    failure(
        format!(
            "{got:?}, and every step's `next` holds what the replay of the step before computed (step 0's, what the static output held before any replay): each step copies the static output out before its own replay writes it. Copy the static output into `next` after the graph launch"
        ),
        before.last().copied(),
    )
}

/// Whether every step from the second on wrote what the replay of the step
/// before it computed: the copy out queued before the launch.
fn behind(run: &Run) -> bool {
    (1..STEPS).all(|s| run.row(s + 1) == &run.decoder.reference_step(run.given(s - 1))[..])
        && run.row(1) != &run.decoder.reference_step(run.given(0))[..]
}

/// The cause a race report names, in words.
fn race_cause(race: &RaceReport) -> String {
    format!(
        "two operations on the same memory that nothing orders, {} at {} and {} at {}: the graph launches on the stream it was captured on, so the copy in, the launch and the copy out belong on that stream, the one given to `new` (or each waits for an event recorded there after the work before it)",
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
