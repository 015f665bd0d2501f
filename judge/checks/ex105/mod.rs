//! Exercise 105: time it right.
//!
//! The learner's `measure` times the judge's workload (`workload.rs`), whose
//! GPU time per call the judge knows: it must warm up, give one sample per
//! timed run matching that run's GPU time, report their median, keep the
//! timed runs queued back to back when it uses events, time each run by a pair of events of its own, and turn the median
//! into a throughput with the right operation count.

mod median;
mod pairs;
mod queue;
mod samples;
#[cfg(test)]
mod tests;
mod workload;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        samples::warms_up_first,
        "the workload runs `warmup` times untimed before the timed runs, and no sample is the cold first call",
        "cpu-and-gpu.md#timing-gpu-work",
        20,
    ),
    check!(
        samples::each_run_is_one_sample,
        "one sample per timed run, each within 2% of the GPU time of its run",
        "cpu-and-gpu.md#timing-gpu-work",
        25,
    ),
    check!(
        median::the_median_is_the_gpu_time,
        "the median is the middle sample, within 2% of the GPU time of a run, whatever one slow run took",
        "cpu-and-gpu.md#timing-gpu-work",
        25,
    ),
    check!(
        queue::the_timed_runs_are_queued_back_to_back,
        "timed with events, the CPU does not wait between the first and the last timed run",
        "hidden-syncs.md#timing-gpu-work",
        15,
        requires = [each_run_is_one_sample],
    ),
    check!(
        pairs::each_timed_run_has_a_pair_of_its_own,
        "timed with events, each timed run has a start and an end event of its own",
        "cpu-and-gpu.md#timing-gpu-work",
        10,
        requires = [each_run_is_one_sample],
    ),
    check!(
        samples::other_plans_are_followed,
        "no warm-up gives the cold first call as the one sample; no timed run gives no sample and a median of 0",
        "cpu-and-gpu.md#timing-gpu-work",
        10,
        requires = [each_run_is_one_sample],
    ),
    check!(
        median::throughput_is_the_work_over_the_median,
        "the throughput is 2·m·n·k floating-point operations over the median, in seconds",
        "cpu-and-gpu.md#timing-gpu-work",
        15,
    ),
];
