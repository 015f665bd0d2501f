//! Exercise 102: the overlap sampler.
//!
//! The checks run the learner's decode loop on a GPU (real or virtual) with
//! the decoder of `support` (2 ms of GPU time per step) and 1.5 ms of CPU
//! work per step. They compare the tokens with a reference computed on the
//! CPU, ask the race checker whether a pinned slot was read before its copy
//! was waited for, read the trace as decode steps (one event wait per step
//! and nothing else that blocks), time `submit` behind a 40 ms gate, and
//! measure a steady-state step against max(GPU, CPU) in one run.

mod outputs;
mod steady;
mod support;
#[cfg(test)]
mod tests;
mod timing;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        outputs::outputs_match_the_reference,
        "every request's tokens equal the reference: up to and including EOS, or up to max_new_tokens",
        "sampling-overlap.md#processing-the-results",
        25,
        requires = [overlap_efficiency],
    ),
    check!(
        outputs::results_are_read_after_their_copy,
        "the CPU reads a pinned slot only after its copy is waited for, and no later copy overwrites it meanwhile",
        "sampling-overlap.md#two-pinned-slots",
        20,
        requires = [overlap_efficiency],
    ),
    check!(
        steady::one_event_wait_per_step,
        "in the steady state, the only call that blocks between two launches is one event wait",
        "sampling-overlap.md#where-the-sync-is",
        20,
    ),
    check!(
        timing::submit_returns_before_the_gate,
        "with a 40 ms spin queued ahead, submitting a step returns at once",
        "sampling-overlap.md#where-the-sync-is",
        15,
    ),
    check!(
        timing::overlap_efficiency,
        "a steady-state step takes about max(GPU, CPU): efficiency at least 0.9",
        "sampling-overlap.md#overlap-scheduling",
        20,
    ),
];
