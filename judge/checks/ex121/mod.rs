//! Exercise 121: find the regression, then fix a step that has all four.
//!
//! Part 1: the judge runs its own engine step (`engine.rs`) before and
//! after one change each, pairs drawn from the seed (`scenes.rs`: a new
//! sync, a lost overlap, a launch-bound range, an allocation in the loop,
//! two of each, and a slower kernel beside some), on its device with GPU
//! timing, and hands the learner both traces as a profile shows them,
//! `blocking` cleared. The checks (`diagnosis.rs`) compare each answer
//! with how the judge built the pair.
//!
//! Part 2: the judge runs its reference step, then the learner's
//! `Engine` on the same device (`fix.rs`), and checks the learner's steps
//! (`fixed.rs`): the tokens, no wait but the final read, no allocation,
//! the copy beside compute without a race, no more kernels than the
//! reference, and the reference's time within a tolerance.

mod diagnosis;
mod engine;
mod fix;
mod fixed;
mod scenes;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod wrong;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        diagnosis::names_each_new_sync,
        "each new sync named at the call where the CPU now waits, and no call that waited before",
        "profiling.md#where-the-cpu-waits",
        13,
    ),
    check!(
        diagnosis::names_each_lost_overlap,
        "each lost overlap named at the copy that no longer runs beside compute",
        "profiling.md#five-pictures-of-a-slow-step",
        13,
    ),
    check!(
        diagnosis::names_each_launch_bound_range,
        "each launch-bound range named: the innermost range whose kernels were split into many tiny ones",
        "profiling.md#five-pictures-of-a-slow-step",
        12,
    ),
    check!(
        diagnosis::names_each_allocation_in_the_loop,
        "each allocation in the loop named at its `alloc_segment`, though its free is what waits",
        "profiling.md#five-pictures-of-a-slow-step",
        12,
    ),
    check!(
        fixed::the_tokens_are_the_reference,
        "every step's tokens are the reference's",
        "profiling.md#from-a-profile-to-a-fix",
        10,
        requires = [the_step_takes_the_reference_time],
    ),
    check!(
        fixed::only_the_final_read_waits,
        "no call in the step can make the CPU wait but the read of the tokens at its end",
        "profiling.md#where-the-cpu-waits",
        10,
    ),
    check!(
        fixed::nothing_is_allocated_in_the_step,
        "no allocation in the step: the scratch allocated once, in `new`",
        "profiling.md#five-pictures-of-a-slow-step",
        8,
    ),
    check!(
        fixed::the_copy_overlaps_compute,
        "the next batch's copy runs on its own stream beside the layers, ordered by events: no race",
        "profiling.md#five-pictures-of-a-slow-step",
        8,
    ),
    check!(
        fixed::the_step_is_not_launch_bound,
        "no more kernels a step than the reference's: layer 2's MLP merged back",
        "profiling.md#five-pictures-of-a-slow-step",
        7,
    ),
    check!(
        fixed::the_step_takes_the_reference_time,
        "the median step within 12% of the reference's, on the same device",
        "profiling.md#running-the-judge",
        7,
    ),
];
