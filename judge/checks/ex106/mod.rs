//! Exercise 106: prefetch on a copy stream.
//!
//! The learner's loop runs the model on eight pinned batches
//! (`workload.rs`) with a copy stream and a compute stream: the outputs
//! must be the batches' sums, with no race between the streams (the
//! `record_stream` rule for buffers allocated on the copy stream), no CPU
//! wait in the steady state, and the copies hidden under the steps, against
//! the physical limit measured in the same run; and other loads (none at
//! all, batches of different lengths, `loads.rs`) must get their sums too.

mod loads;
mod outputs;
mod overlap;
mod steady;
#[cfg(test)]
mod tests;
mod workload;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        outputs::outputs_are_every_batchs_sum,
        "every batch's output is its sum",
        "streams-and-events.md#copies-that-overlap-compute",
        25,
        requires = [copies_overlap_the_steps],
    ),
    check!(
        outputs::no_race_between_the_streams,
        "no race between the copy stream and the compute stream, reuse of freed memory included",
        "streams-and-events.md#when-a-buffer-crosses-streams-record_stream",
        25,
        requires = [copies_overlap_the_steps],
    ),
    check!(
        steady::no_cpu_wait_in_the_steady_state,
        "between the second step and the last, no call that can make the CPU wait",
        "streams-and-events.md#waiting-on-the-gpu-against-waiting-on-the-cpu",
        20,
        requires = [copies_overlap_the_steps],
    ),
    check!(
        loads::any_load_gets_every_batchs_sum,
        "no batch at all gets no output, and batches of different lengths each get their sum",
        "streams-and-events.md#copies-that-overlap-compute",
        10,
        requires = [copies_overlap_the_steps],
    ),
    check!(
        overlap::copies_overlap_the_steps,
        "the run takes at most 10% more than max(first copy + every step, every copy + last step), from its own GPU times",
        "streams-and-events.md#copies-that-overlap-compute",
        30,
    ),
];
