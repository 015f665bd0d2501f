//! Exercise 116: remove the hidden syncs from one decode step.
//!
//! The checks make the learner's `Decoding` for 32 requests with a decoder
//! of 1 ms of GPU time a step, queue a 40 ms spin on its stream, run 16
//! steps with the trace of each marked, then call `finish`. They compare
//! the report with the decoder's reference on the CPU and read the race
//! checker's reports, and they read each step's trace: no call that can
//! make the CPU wait, each one found named by its kind and its line; no
//! allocation; every step returned within half the spin (the CPU ran
//! ahead of the GPU); one step time per step, each that step's GPU
//! time, from events around all of the step's work. A second run stops
//! after 8 of its 16 `max_steps`, and a third after none: their reports
//! hold the steps that ran.

mod ahead;
mod allocs;
mod report;
mod short;
mod support;
#[cfg(test)]
mod tests;
mod times;
mod waits;
#[cfg(test)]
mod wrong;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        report::the_report_is_the_reference,
        "every request's output and the number finished equal the decoder's reference, and no race",
        "hidden-syncs.md#data-dependent-shapes-and-control-flow",
        30,
        requires = [the_step_only_queues_work],
    ),
    check!(
        waits::the_step_only_queues_work,
        "no call in a step can make the CPU wait: no pinned free, no read back, no `elapsed_ms`, no synchronize",
        "hidden-syncs.md#the-implicit-syncs",
        30,
    ),
    check!(
        allocs::nothing_is_allocated_in_a_step,
        "a step allocates nothing: device, pinned and raw memory are allocated once, in `new`",
        "hidden-syncs.md#allocation-and-free",
        15,
    ),
    check!(
        ahead::the_cpu_runs_ahead_of_the_gpu,
        "behind a 40 ms spin, all 16 steps return within 20 ms: the CPU queues ahead of the GPU",
        "hidden-syncs.md#finding-hidden-syncs",
        15,
    ),
    check!(
        times::step_times_are_the_gpu_s,
        "one step time per step, each the GPU time of that step, read after the run",
        "hidden-syncs.md#timing-gpu-work",
        10,
        requires = [the_step_only_queues_work],
    ),
    check!(
        times::the_events_enclose_each_step,
        "each step's events lie around all of its work on the stream: the copy in, the decoder and the flags",
        "hidden-syncs.md#timing-gpu-work",
        5,
        requires = [the_step_only_queues_work],
    ),
    check!(
        short::a_run_may_stop_before_max_steps,
        "after fewer steps than `max_steps` (8 of 16, and none), the report holds the steps that ran",
        "hidden-syncs.md#data-dependent-shapes-and-control-flow",
        10,
        requires = [the_step_only_queues_work],
    ),
];
