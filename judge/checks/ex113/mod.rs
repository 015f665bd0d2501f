//! Exercise 113: bucketing with padding.
//!
//! The checks drive the learner's `BucketedStep` over a workload of 12
//! batches of 0 to 8 rows with a decoder of 512 tokens (200 us of GPU time
//! a step), blanking the static output before each step and reading the
//! static input and output after it, then read every batch's `next` once.
//! They compare each batch's tokens with eager decoding, tell the bucket a
//! graph ran by the rows of the static output it wrote, check that the
//! padding rows held `PAD` (not an earlier batch's rows) when the graph
//! ran, read each step's trace (one graph launch, nothing that allocates,
//! captures or waits; nothing for an empty batch), and give a batch of 9
//! rows to a fresh step.

mod bucket;
mod padding;
mod queues;
mod refuse;
mod support;
#[cfg(test)]
mod tests;
mod tokens;
#[cfg(test)]
mod wrong;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        tokens::tokens_equal_eager_decoding,
        "every batch's tokens equal eager decoding, whatever the batch before it",
        "cuda-graphs.md#one-graph-per-bucket",
        35,
    ),
    check!(
        bucket::smallest_bucket,
        "each batch runs the graph of the smallest bucket that holds it",
        "cuda-graphs.md#one-graph-per-bucket",
        20,
    ),
    check!(
        padding::padding_written,
        "the rows between the batch and its bucket hold `PAD` when the graph runs, never an earlier batch's rows",
        "cuda-graphs.md#one-graph-per-bucket",
        20,
    ),
    check!(
        queues::each_step_only_queues,
        "each step is one graph launch with its copies and padding: no eager step, allocation, capture or wait; an empty batch queues nothing",
        "cuda-graphs.md#fixed-addresses-and-shapes",
        15,
    ),
    check!(
        refuse::too_many_rows_refused,
        "a batch of more rows than the largest bucket is refused with `Error::TooManyRows`, having queued nothing",
        "cuda-graphs.md#one-graph-per-bucket",
        10,
    ),
];
