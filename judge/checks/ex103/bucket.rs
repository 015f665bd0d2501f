//! `bucket_for`: the smallest captured batch size that holds a batch.

use graph_buffers::{BUCKETS, MAX_ROWS, bucket_for};
use judge_harness::Failure;

/// What `bucket_for(rows)` must be.
fn expected(rows: usize) -> Option<usize> {
    (rows > 0)
        .then(|| BUCKETS.iter().copied().find(|&b| b >= rows))
        .flatten()
}

pub(super) fn bucket_for_picks_the_smallest_that_fits(
    _: &judge_harness::Ctx,
) -> Result<(), Failure> {
    for rows in 0..=MAX_ROWS + 1 {
        let (want, got) = (expected(rows), bucket_for(rows));
        if got == want {
            continue;
        }
        let why = match (got, want) {
            (Some(g), _) if g < rows => format!(
                "a bucket too small: a graph of {g} rows computes only {g} of the {rows} rows; pad up, never down"
            ),
            (Some(g), Some(w)) if g > w => format!(
                "a fitting bucket, but not the smallest: {w} rows would do, and every padding row is wasted GPU work"
            ),
            (Some(_), None) => "no bucket holds this batch: it must be refused (None)".to_string(),
            (None, Some(w)) => format!("the bucket of {w} rows holds it"),
            _ => "not a captured batch size".to_string(),
        };
        return Err(Failure::new(
            format!("bucket_for({rows}) = {want:?} (buckets {BUCKETS:?})"),
            format!("{got:?}: {why}"),
        ));
    }
    Ok(())
}
