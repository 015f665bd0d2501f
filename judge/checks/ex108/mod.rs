//! Exercise 108: the sampler stays on the GPU.
//!
//! The checks run the learner's decode loop with exercise 102's decoder
//! (2 ms of GPU time per step) over 7 prompts and 12 steps. They compare
//! the tokens with a reference computed on the CPU, read the trace between
//! the first step's launch and the last (no wait, no copy between the host
//! and the device) and after the last (one copy of every step's tokens, one
//! wait), and queue a 40 ms spin ahead of the loop to see the CPU launch
//! every step before the GPU starts the first.

mod ahead;
mod read;
mod steps;
mod support;
#[cfg(test)]
mod tests;
mod tokens;
#[cfg(test)]
mod wrong;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        tokens::tokens_match_the_reference,
        "every prompt's tokens equal the reference: the decoder's greedy choice, step after step",
        "sampling-overlap.md#the-tokens-stay-on-the-gpu",
        30,
        requires = [the_cpu_runs_ahead_of_the_gpu],
    ),
    check!(
        steps::no_step_waits_for_the_gpu,
        "between the first step's launch and the last, no call waits for the GPU and no token travels to or from the host",
        "sampling-overlap.md#where-the-sync-is",
        25,
    ),
    check!(
        ahead::the_cpu_runs_ahead_of_the_gpu,
        "with a 40 ms spin queued ahead, every step is launched before the GPU starts the first",
        "sampling-overlap.md#the-tokens-stay-on-the-gpu",
        25,
    ),
    check!(
        read::the_tokens_are_read_once_at_the_end,
        "after the last launch, one copy brings every step's tokens to the host, with one wait",
        "sampling-overlap.md#the-tokens-stay-on-the-gpu",
        20,
    ),
];
