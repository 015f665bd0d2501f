//! Exercise 110: one decode step, captured once.
//!
//! The checks drive the learner's `CapturedStep` over 12 steps of 5
//! requests with a decoder of 512 tokens (200 us of GPU time a step), row s
//! of a device history into row s + 1, then read the history once. They
//! compare every step's tokens with eager decoding (the decoder's CPU twin,
//! step after step), and read the trace of `new` (one capture, holding the
//! `decode_step`) and of each step (one graph launch, no eager step, no
//! allocation, no capture, nothing that waits), and that no buffer `new`
//! made before the capture is freed while the graph may be launched.

mod capture;
mod outlive;
mod replay;
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
        "every step's tokens equal eager decoding: the decoder's choice after the tokens of the step before",
        "cuda-graphs.md#static-inputs-and-outputs",
        40,
        requires = [each_step_is_one_replay],
    ),
    check!(
        capture::captured_once_in_new,
        "`new` captures one graph holding the `decode_step`, and no step captures",
        "cuda-graphs.md#capture-and-replay",
        30,
    ),
    check!(
        replay::each_step_is_one_replay,
        "each step is one graph launch: no eager `decode_step`, no allocation, no capture, no call that waits",
        "cuda-graphs.md#fixed-addresses-and-shapes",
        30,
    ),
    check!(
        outlive::captured_buffers_outlive_the_graph,
        "the buffers the graph was captured with stay allocated as long as the graph: none is freed after the capture",
        "cuda-graphs.md#fixed-addresses-and-shapes",
        10,
        requires = [captured_once_in_new],
    ),
];
