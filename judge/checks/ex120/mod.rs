//! Exercise 120: attribute a step's time to its ranges. A profiler's
//! summary table, computed from a trace.
//!
//! The judge runs three decode steps of an engine on its device, built
//! from the seed (`scenes.rs`: layers of attention and MLP kernels, a
//! prefetch and a kv cache copy on a side stream that run beside the main
//! stream's kernels, a stall that leaves the GPU idle, a range with no GPU
//! work, copies, ranges three deep), each part in a range (`runner.rs`).
//! It knows from how it built each step which calls each range made and
//! which ranges are nested in which, and takes the times from the same
//! trace it hands the learner (`truth.rs`). The checks compare the
//! learner's table with the truth column by column (`verdict.rs`), and
//! name a known mistake when its reading (`readings.rs`) is every wrong
//! value of the column (`causes.rs`, in the words of `words.rs`).

mod causes;
mod readings;
mod runner;
mod scenes;
#[cfg(test)]
mod tests;
mod truth;
mod verdict;
mod words;
#[cfg(test)]
mod wrong;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        verdict::inclusive_cpu_time,
        "one row per range, in the order of `trace.ranges`, each with the range's CPU time from its open to its close",
        "profiling.md#ranges-naming-the-parts-of-a-step",
        15,
    ),
    check!(
        verdict::exclusive_cpu_time,
        "each range's exclusive CPU time: its CPU time less that of the ranges directly nested in it",
        "profiling.md#attributing-time-to-ranges",
        15,
        requires = [inclusive_cpu_time],
    ),
    check!(
        verdict::gpu_time_of_the_work_each_range_queued,
        "each range's GPU time: how long the GPU was busy with the work its calls queued, on any stream, overlap once and gaps not at all, whenever it ran",
        "profiling.md#attributing-time-to-ranges",
        40,
        requires = [inclusive_cpu_time],
    ),
    check!(
        verdict::exclusive_gpu_time,
        "each range's exclusive GPU time: the busy time of the work queued in it outside every range nested in it",
        "profiling.md#attributing-time-to-ranges",
        30,
        requires = [inclusive_cpu_time],
    ),
];
