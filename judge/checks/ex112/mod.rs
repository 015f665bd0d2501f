//! Exercise 112: launch-bound against compute-bound.
//!
//! The learner's `profile` measures five sizes of kernel (`support.rs`):
//! two far shorter than a launch, three far longer. The judge measures
//! each size itself, the way the chapter does, and checks the learner's
//! CPU time of one launch and GPU time of one kernel against its own, each
//! wrong figure told by its cause. `Profile::bound` and `crossover` are
//! asked about profiles the judge wrote, far from a tie, so their checks do
//! not depend on a measurement.

mod classify;
mod kernels;
mod launches;
mod support;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod wrong;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        launches::the_cpu_time_is_one_launch,
        "for each kernel size, the CPU time of one launch: the warm-up untimed, nothing waits in the timed loop",
        "cpu-and-gpu.md#launch-cost-against-kernel-time",
        30,
    ),
    check!(
        kernels::the_gpu_time_is_one_kernel,
        "for each kernel size, the GPU time of one kernel: timed on the GPU, the kernels back to back",
        "cpu-and-gpu.md#launch-cost-against-kernel-time",
        30,
    ),
    check!(
        classify::each_profile_is_classified,
        "a profile is launch-bound when a launch costs the CPU more than its kernel costs the GPU, compute-bound otherwise",
        "cpu-and-gpu.md#launch-cost-against-kernel-time",
        20,
    ),
    check!(
        classify::the_crossover_is_the_first_compute_bound_size,
        "the crossover is the index of the first compute-bound size, or none",
        "cpu-and-gpu.md#launch-cost-against-kernel-time",
        20,
        requires = [each_profile_is_classified],
    ),
];
