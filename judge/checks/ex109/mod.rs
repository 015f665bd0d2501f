//! Exercise 109: rounding and pools, the first decision of every `malloc`.
//!
//! The judge keeps PyTorch's rules itself (`rules.rs`), calls each of the
//! learner's three functions on a table of sizes that holds every boundary,
//! and compares the answers with its own; a wrong answer is put down to the
//! known mistake that explains the most of them (`mistakes.rs`), in the
//! words of `verdict.rs`. Nothing runs on a device: the verdict is the same
//! on both backends.

mod mistakes;
mod rules;
#[cfg(test)]
mod tests;
mod verdict;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        verdict::requests_round_up_to_a_multiple_of_512,
        "every request is rounded up to a multiple of 512 bytes, and is at least 512 bytes",
        "allocator.md#rounding-and-pools",
        35,
    ),
    check!(
        verdict::up_to_one_mib_is_the_small_pool,
        "a rounded request of at most 1 MiB goes to the small pool, anything larger to the large pool",
        "allocator.md#rounding-and-pools",
        30,
    ),
    check!(
        verdict::a_new_segment_follows_the_pool_and_the_size,
        "a new segment is 2 MiB for the small pool, 20 MiB for large requests under 10 MiB, else the request rounded up to 2 MiB",
        "allocator.md#segments",
        35,
    ),
];
