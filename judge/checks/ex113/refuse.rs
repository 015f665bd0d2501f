//! A batch of more rows than the largest bucket: refused with
//! `Error::TooManyRows`, before anything is queued.

use super::support::{SECTION, describe, make, setup};
use bucketed_step::{Error, MAX_ROWS};
use judge_harness::{Ctx, Failure};

/// The rows of the batch no bucket holds.
const ROWS: usize = MAX_ROWS + 1;

/// What the check expects, in words.
const EXPECTED: &str =
    "a batch of 9 rows to return `Error::TooManyRows { rows: 9, max: 8 }` and queue nothing";

pub(super) fn too_many_rows_refused(ctx: &Ctx) -> Result<(), Failure> {
    let (device, stream, decoder) = setup(ctx)?;
    let tokens = stream.alloc_zeros::<i32>(ROWS)?;
    stream.fill(&tokens, 1)?;
    let next = stream.alloc_zeros::<i32>(ROWS)?;
    let mut step = make(&stream, &decoder)?;
    let mark = device.trace_mark();
    let answer = step.step(tokens.slice(0..ROWS), next.slice(0..ROWS));
    let calls = device.trace().since(mark).to_vec();
    let fail = |actual: String| Failure::new(EXPECTED, format!("{actual}; see {SECTION}"));
    match answer {
        Err(Error::TooManyRows { rows: ROWS, max: MAX_ROWS }) => match calls.first() {
            None => Ok(()),
            Some(first) => Err(fail(format!(
                "the batch of {ROWS} rows was refused, after queuing {} ({} call(s) in all): check the batch's size first, and return before any copy",
                describe(first),
                calls.len()
            ))
            .at(first.site)),
        },
        Err(Error::TooManyRows { rows, max }) => Err(fail(format!(
            "the batch of {ROWS} rows was refused with `Error::TooManyRows {{ rows: {rows}, max: {max} }}`: the error names the batch's rows, {ROWS}, and the largest bucket, `MAX_ROWS` = {MAX_ROWS}"
        ))),
        Err(Error::Gpu(e)) => Err(fail(format!(
            "the batch of {ROWS} rows failed with a GPU error, not `Error::TooManyRows`: {e}. No bucket holds it: when `bucket_for` is `None`, return the error before touching the static buffers"
        ))),
        Ok(()) => Err(fail(format!(
            "the batch of {ROWS} rows was accepted (`Ok(())`): no graph computes more than {MAX_ROWS} rows, so some of its rows got no tokens. Return `Error::TooManyRows {{ rows: {ROWS}, max: MAX_ROWS }}` when `bucket_for` is `None`"
        ))),
    }
}
