//! The bucket: the graph each batch ran is the smallest bucket's that holds
//! it, told by the rows of the static output it wrote (the judge blanks
//! them before each step).

use super::support::{Run, SECTION, bucket_for, run};
use gpu::OpKind;
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str = "each batch of n rows to run the graph of `bucket_for(n)`, the smallest bucket that holds it: the graph that computes exactly that many rows";

pub(super) fn smallest_bucket(ctx: &Ctx) -> Result<(), Failure> {
    buckets(&run(ctx)?)
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
