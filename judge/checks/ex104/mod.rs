//! Exercise 104: sync elimination.
//!
//! The learner's serving loop runs the workload of `workload.rs` on the
//! judge's device: its outputs and log lines must be the reference's; its
//! steady-state steps may contain one CPU wait per log window and none
//! otherwise (the sync report of `report.rs`, read from the trace); its
//! launches keep one shape; a step queued behind a long `spin` returns at
//! once; its step time reaches the GPU-bound limit measured in the same run;
//! and the step times it reports agree with the judge's events; and runs
//! shorter than `max_steps` are reported as they ran (`shorter.rs`).

mod outputs;
mod report;
mod shorter;
mod support;
mod syncs;
#[cfg(test)]
mod tests;
mod timing;
mod workload;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        outputs::outputs_and_logs_match_the_reference,
        "every request's output and every log line are the starter's, with no race",
        "hidden-syncs.md#why-a-sync-exists",
        20,
        requires = [one_wait_per_log_window],
    ),
    check!(
        syncs::one_wait_per_log_window,
        "in the steady state, exactly one call that can block per log window, at its last step, and none elsewhere",
        "hidden-syncs.md#finding-hidden-syncs",
        25,
    ),
    check!(
        syncs::launch_shapes_are_fixed,
        "every steady-state step launches its kernels with the same shapes",
        "hidden-syncs.md#data-dependent-shapes-and-control-flow",
        10,
    ),
    check!(
        shorter::shorter_runs_are_reported_as_they_ran,
        "a run of no step, and one of a window and a half after an idle CPU, are reported as they ran",
        "hidden-syncs.md#where-to-put-the-sync-points",
        10,
        requires = [one_wait_per_log_window],
    ),
    check!(
        timing::a_step_returns_before_the_gate,
        "a step queued behind a 50 ms spin on both streams returns in well under 25 ms",
        "hidden-syncs.md#finding-hidden-syncs",
        15,
    ),
    check!(
        timing::step_time_reaches_the_gpu_bound_limit,
        "a steady-state step takes at most 10% more than the decoder step alone, measured in the same run",
        "hidden-syncs.md#where-to-put-the-sync-points",
        15,
    ),
    check!(
        timing::reported_step_times_match_events,
        "the median step time the server reports is within 10% of the judge's event timing",
        "hidden-syncs.md#timing-gpu-work",
        15,
        requires = [one_wait_per_log_window],
    ),
];
