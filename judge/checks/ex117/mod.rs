//! Exercise 117: a three-stage pipeline on three streams.
//!
//! The learner's loop runs a layer on eight pinned chunks (`workload.rs`)
//! with a copy-in, a compute and a copy-out stream and two device buffers
//! per stage: every output must be its chunk's layer, for eight chunks, one
//! and none; no race between the stages or with the CPU (a buffer refilled
//! before the stage that read it was done is named with its chunk); no CPU
//! wait in the loop; and the three stages overlapping, against the
//! physical limit measured in the same run, a slower run saying which stage
//! waited and why.

mod outputs;
mod overlap;
mod races;
#[cfg(test)]
mod tests;
mod waits;
mod workload;
#[cfg(test)]
mod wrong;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        outputs::outputs_are_each_chunks_layer,
        "every chunk's output is 2 x + 1 of that chunk, eight chunks",
        "streams-and-events.md#copies-that-overlap-compute",
        20,
        requires = [the_stages_overlap],
    ),
    check!(
        outputs::one_chunk_and_none,
        "one chunk gets its output, and no chunk at all gets no output",
        "streams-and-events.md#copies-that-overlap-compute",
        10,
        requires = [the_stages_overlap],
    ),
    check!(
        races::no_race_between_the_stages,
        "no race between the three streams or with the CPU: each buffer refilled only after the stage that read it",
        "streams-and-events.md#three-stages-copy-in-compute-copy-out",
        25,
        requires = [the_stages_overlap],
    ),
    check!(
        waits::no_cpu_wait_in_the_loop,
        "between the first copy-in and the last copy-out, no call that can make the CPU wait",
        "streams-and-events.md#waiting-on-the-gpu-against-waiting-on-the-cpu",
        15,
        requires = [the_stages_overlap],
    ),
    check!(
        overlap::the_stages_overlap,
        "the run takes at most 10% more than the physical limit of three engines, from its own GPU times",
        "streams-and-events.md#three-stages-copy-in-compute-copy-out",
        30,
    ),
];
