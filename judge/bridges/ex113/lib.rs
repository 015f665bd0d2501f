//! Exercise 113's API as the checks see it in the judge's checker: a
//! [`BucketedStep`] that lives in the agent ([`judge_harness::bridge`]),
//! made on the judge's stream and decoder, lent to it. Every copy, fill and
//! replay the learner's code queues runs on the judge's device, whose trace
//! the checks read, and whose static buffers they read between steps.
//!
//! Declared once in `api.rs`, the agent's end too ([`judge_harness::bridge!`]).

use std::fmt;

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");

/// The batch sizes a graph is captured for, smallest first.
pub const BUCKETS: [usize; 4] = [1, 2, 4, 8];
/// The largest batch a step takes: the largest bucket.
pub const MAX_ROWS: usize = 8;
/// The padding token.
pub const PAD: i32 = 0;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Gpu(e) => write!(f, "{e}"),
            Self::TooManyRows { rows, max } => write!(
                f,
                "a batch of {rows} rows has no bucket: split it into batches of at most `MAX_ROWS` = {max} rows"
            ),
        }
    }
}

impl From<gpu::GpuError> for Error {
    fn from(e: gpu::GpuError) -> Self {
        Self::Gpu(e)
    }
}
