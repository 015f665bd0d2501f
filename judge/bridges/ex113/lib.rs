//! Exercise 113's API as the checks see it in the judge's checker: a
//! [`BucketedStep`] that lives in the agent ([`judge_harness::bridge!`]),
//! made on the judge's stream and decoder, lent to it. Every copy, fill and
//! replay the learner's code queues runs on the judge's device, whose trace
//! the checks read, and whose static buffers they read between steps.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");

/// The batch sizes a graph is captured for, smallest first.
pub const BUCKETS: [usize; 4] = [1, 2, 4, 8];
/// The largest batch a step takes: the largest bucket.
pub const MAX_ROWS: usize = 8;
/// The padding token.
pub const PAD: i32 = 0;

/// The learner's message (the checks read it).
impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_string())
    }
}

impl std::error::Error for Error {}
