//! Exercise 115: a pinned double buffer for the tokens.
//!
//! The checks run the learner's decode loop (the given `generate`, with the
//! learner's `TokenSlots`) with exercise 102's decoder (2 ms of GPU time per
//! step) over 7 prompts and 12 steps. They compare the tokens with a
//! reference computed on the CPU, ask the race checker whether a slot was
//! read before the event after its copy (the trace names the slot and the
//! step), read the trace for the copies (into pinned slots allocated once,
//! one event wait between two launches), and measure on the trace how long
//! the GPU idles between two steps while the CPU spends 1.5 ms on each
//! step's tokens.

mod copies;
mod overlap;
mod slots;
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
        "every prompt's tokens equal the reference, in order: for 12 steps, for one step, for none",
        "sampling-overlap.md#two-pinned-slots",
        30,
        requires = [the_gpu_never_waits_for_the_cpu],
    ),
    check!(
        slots::each_slot_is_read_after_its_event,
        "the CPU reads a slot only after waiting for the event recorded after the copy into it, and no later copy lands in it before the read",
        "sampling-overlap.md#two-pinned-slots",
        25,
        requires = [the_gpu_never_waits_for_the_cpu],
    ),
    check!(
        copies::the_copies_do_not_wait,
        "two pinned slots allocated before the first step, every copy into one of them, and one event wait between two launches",
        "sampling-overlap.md#two-pinned-slots",
        20,
    ),
    check!(
        overlap::the_gpu_never_waits_for_the_cpu,
        "with 1.5 ms of CPU work on each step's tokens, the GPU idles under 0.2 ms between two steps",
        "sampling-overlap.md#two-pinned-slots",
        25,
    ),
];
