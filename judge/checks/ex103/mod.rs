//! Exercise 103: CUDA graphs with static buffers.
//!
//! The checks drive the learner's `Runner` on the GPU (real or virtual)
//! over decode steps whose batch size changes from step to step. They
//! compare every step's output with the model computed on the CPU (the same
//! roundings as the GPU's eager run), look at the trace of steady-state
//! steps (one graph launch each, no capture, nothing that blocks), and time
//! the CPU's submit of a step against the eager stack, in one run.
//!
//! The suite is a folder: this `mod.rs` holds the table of checks, in the
//! order they run, each submodule a theme's checks, and `support` what
//! they share.

mod bucket;
mod edges;
mod outputs;
mod submit;
mod support;
#[cfg(test)]
mod tests;
mod trace;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        bucket::bucket_for_picks_the_smallest_that_fits,
        "bucket_for(rows) is the smallest bucket of at least rows rows, None for 0 or more than 16",
        "cuda-graphs.md#one-graph-per-bucket",
        15,
    ),
    check!(
        outputs::outputs_equal_eager,
        "over a long run of changing batch sizes, every output equals the eager model's",
        "cuda-graphs.md#static-inputs-and-outputs",
        35,
        requires = [one_graph_launch_per_step],
    ),
    check!(
        trace::one_graph_launch_per_step,
        "Runner::new captures one graph per bucket; after warm-up, each step is exactly one graph launch: no capture, no kernel of the model, nothing that blocks",
        "cuda-graphs.md#capture-and-replay",
        25,
    ),
    check!(
        edges::decode_takes_any_list_of_batches,
        "decode of no batch is zero steps; one call of batches of 1, 16 and 3 rows is right; 0 and 17 rows are refused",
        "cuda-graphs.md#one-graph-per-bucket",
        10,
        requires = [one_graph_launch_per_step],
    ),
    check!(
        submit::submit_at_least_5x_less_than_eager,
        "the CPU submits a step at least 5 times faster than the eager stack, in the same run",
        "cuda-graphs.md#what-a-graph-saves",
        25,
    ),
];
