//! The padding: when a batch's graph ran, the rows of the static input
//! between the batch and the bucket held `PAD`, not the rows an earlier,
//! bigger batch left there, and the padding did not begin inside the batch.
//! The judge reads the static input after each step; the trace says
//! whether the padding was queued before the launch.

use super::support::{
    PAD_WORDS, Run, SECTION, Step, bucket_for, describe, is_fill, padded, padding_inside, run,
};
use gpu::OpKind;
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str = "rows n..bucket of the static input to hold `PAD` when each batch's graph runs (written before the launch), and rows 0..n the batch";

pub(super) fn padding_written(ctx: &Ctx) -> Result<(), Failure> {
    paddings(&run(ctx)?)
}

/// The check on one run.
pub(super) fn paddings(run: &Run) -> Result<(), Failure> {
    for (s, step) in run.steps.iter().enumerate() {
        let n = step.rows();
        let Some(launch) = step.calls.iter().position(|e| e.op == OpKind::GraphLaunch) else {
            continue;
        };
        // The rows the graph read: those of the bucket it ran, or of the
        // batch's own bucket when it ran a smaller one.
        let bucket = step.computed().max(bucket_for(n).unwrap_or(n));
        let fail = |actual: String, at: gpu::CallSite| {
            Err(Failure::new(
                EXPECTED,
                format!(
                    "step {s}, a batch of {n} rows in bucket {bucket}: {actual}; see {SECTION}"
                ),
            )
            .at(at))
        };
        let replay = &step.calls[launch];
        if let Some(k) = padding_inside(step) {
            return fail(
                format!(
                    "rows {k}..{n} of the static input held {PAD_WORDS} when the graph ran, where the batch's last {} row(s) belong: the padding began at row {k}, inside the batch. It is rows {n}..{bucket}, from right after the batch's last row",
                    n - k
                ),
                padding_call(step, launch).map_or(replay.site, |e| e.site),
            );
        }
        if padded(&step.input, n..bucket) {
            if let Some(late) = step.calls[launch..].iter().find(|e| is_fill(e)) {
                return fail(
                    format!(
                        "the padding ({}) was queued after the graph launch: the graph ran on rows {n}..{bucket} as the step found them (an earlier batch's rows, or the first zeros), and the padding came too late. Fill the padding before `launch`",
                        describe(late)
                    ),
                    late.site,
                );
            }
            continue;
        }
        let stale = stale_rows(run, s, bucket);
        if let (Some(_), Some(fill)) = (stale, padding_sized_fill(step, launch, bucket - n)) {
            return fail(
                format!(
                    "rows {n}..{bucket} of the static input held {:?} when the graph ran, an earlier batch's rows (stale rows), though {} filled {} token(s), the padding's size, before the launch: the fill wrote another buffer, not rows {n}..{bucket} of the static input (the static output's padding rows, say, which the graph overwrites anyway). The graph reads every row of its bucket from the static input: fill `input(n..bucket)` with `PAD`",
                    &step.input[n..bucket],
                    describe(fill),
                    bucket - n
                ),
                fill.site,
            );
        }
        let actual = match stale {
            Some((r, earlier)) => format!(
                "rows {n}..{bucket} of the static input held {:?} when the graph ran, and row {r} is row {r} of step {earlier}'s batch of {} rows: stale rows. {} The graph computes every row of its bucket, from whatever they hold. Fill rows {n}..{bucket} with `PAD` after copying the batch in, before the launch",
                &step.input[n..bucket],
                run.steps[earlier].rows(),
                fills_queued(step, launch)
            ),
            None => format!(
                "rows {n}..{bucket} of the static input held {:?} when the graph ran, not {PAD_WORDS}: fill the padding rows with `PAD`, a token the decoder knows",
                &step.input[n..bucket]
            ),
        };
        return fail(actual, replay.site);
    }
    Ok(())
}

/// What the step queued to write the padding, in a sentence: nothing, or
/// its fills (none of them the padding's rows before the launch).
fn fills_queued(step: &Step, launch: usize) -> String {
    let fills: Vec<String> = step
        .calls
        .iter()
        .filter(|e| is_fill(e))
        .map(|e| format!("{} of {} token(s)", describe(e), e.bytes / 4))
        .collect();
    match fills.as_slice() {
        [] => "The step queued no fill at all: nothing wrote the padding rows, so they kept what an earlier batch left there.".into(),
        _ if step.calls[..launch].iter().any(is_fill) => format!(
            "The step's fill ({}) did not write these rows.",
            fills.join(", ")
        ),
        _ => format!(
            "The step's only fill ({}) came after the launch.",
            fills.join(", ")
        ),
    }
}

/// A fill of exactly `rows` tokens queued before the launch, if the step
/// queued one.
fn padding_sized_fill(step: &Step, launch: usize, rows: usize) -> Option<&gpu::TraceEntry> {
    step.calls[..launch]
        .iter()
        .find(|e| is_fill(e) && e.bytes == 4 * rows as u64)
}

/// The fill before the launch, if the step queued one.
fn padding_call(step: &Step, launch: usize) -> Option<&gpu::TraceEntry> {
    step.calls[..launch].iter().rfind(|e| is_fill(e))
}

/// The first row of `n..bucket` of step `s`'s static input that holds the
/// same row of an earlier batch, with the latest such batch.
fn stale_rows(run: &Run, s: usize, bucket: usize) -> Option<(usize, usize)> {
    let step = &run.steps[s];
    (step.rows()..bucket).find_map(|r| {
        let earlier = (0..s)
            .rev()
            .find(|&e| run.steps[e].tokens.get(r) == Some(&step.input[r]))?;
        Some((r, earlier))
    })
}
