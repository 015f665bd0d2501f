//! The bucket: the graph each batch ran is the smallest bucket's that holds
//! it, told by the rows of the static output it wrote (the judge blanks
//! them before each step).

use super::support::{Run, SECTION, bucket_for, run};
use bucketed_step::MAX_ROWS;
use gpu::OpKind;
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str = "each batch of n rows to run the graph of `bucket_for(n)`, the smallest bucket that holds it: the graph that computes exactly that many rows";

pub(super) fn smallest_bucket(ctx: &Ctx) -> Result<(), Failure> {
    learners_table()?;
    buckets(&run(ctx)?)
}

/// Passes when the learner's `bucket_for` answers as the rule for every
/// batch from none to two rows past the largest bucket (rule 1: 1 for 0
/// rows, `None` above `MAX_ROWS`), though `step` never asks it about 0.
fn learners_table() -> Result<(), Failure> {
    for rows in 0..=MAX_ROWS + 2 {
        let (said, rule) = (bucketed_step::bucket_for(rows), bucket_for(rows));
        if said == rule {
            continue;
        }
        let why = match (rows, said) {
            (0, None) => "for 0 rows the rule is the smallest bucket, 1: `None` means only \"more than `MAX_ROWS`\" (what `step` turns into `Error::TooManyRows`); an empty batch returns before it asks, but `bucket_for` is public and answers for every size".to_string(),
            (_, None) => format!("{rows} rows fit a bucket (at most `MAX_ROWS` = {MAX_ROWS}): `None` is only for more"),
            (_, Some(b)) if rows > MAX_ROWS => format!("no bucket holds {rows} rows, yet it said {b}: above `MAX_ROWS` the answer is `None`"),
            (_, Some(b)) if b < rows => format!("bucket {b} holds fewer than {rows} rows: pad up, never down"),
            (_, Some(_)) => "the bucket is the first of `BUCKETS` that is at least the rows, not a larger one".into(),
        };
        return Err(Failure::new(
            "`bucket_for(rows)` to be the smallest of `BUCKETS` at least `rows` (1 for 0 rows), `None` above `MAX_ROWS`, for rows 0 to 10",
            format!(
                "`bucket_for({rows})` returned {said:?}, the rule says {rule:?}: {why}; see {SECTION}"
            ),
        ));
    }
    Ok(())
}

/// The check on one run.
pub(super) fn buckets(run: &Run) -> Result<(), Failure> {
    for (s, step) in run.steps.iter().enumerate() {
        let n = step.rows();
        let Some(want) = bucket_for(n).filter(|_| n > 0) else {
            continue;
        };
        let ran = step.computed();
        if ran == want {
            continue;
        }
        let launch = step.calls.iter().find(|e| e.op == OpKind::GraphLaunch);
        let actual = if launch.is_none() {
            format!(
                "step {s}, a batch of {n} rows, launched no graph (the static output kept the judge's blank): every batch of 1 to 8 rows is one launch of its bucket's graph, here bucket {want}'s"
            )
        } else if ran < n {
            format!(
                "step {s}, a batch of {n} rows, ran the graph of bucket {ran}, which computes only {ran} rows; the smallest bucket that holds {n} rows is {want}. Pad up, never down: rows {ran}..{n} were never computed"
            )
        } else {
            format!(
                "step {s}, a batch of {n} rows, ran the graph of bucket {ran}; the smallest bucket that holds {n} rows is {want}. A bigger bucket is right but wasteful: the GPU computes {} padding rows where {} would do. `bucket_for` is the first of `BUCKETS` that is at least the batch's rows",
                ran - n,
                want - n
            )
        };
        let failure = Failure::new(EXPECTED, format!("{actual}; see {SECTION}"));
        return Err(match launch {
            Some(e) => failure.at(e.site),
            None => failure,
        });
    }
    Ok(())
}
