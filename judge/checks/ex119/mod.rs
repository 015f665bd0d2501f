//! Exercise 119: find the wait. A profile read as an engineer reads one.
//!
//! The judge runs three short steps of an engine on its device, each made
//! of beats (`scenes.rs`: kernels of hundreds of microseconds, calls that
//! wait for them, the same calls once the GPU is done, host work, slow
//! calls that wait for nothing) drawn from the seed (`draw.rs`). It knows
//! from how it built them which calls wait, and hands the learner each
//! step's trace as a profile shows it, `blocking` cleared (`runner.rs`,
//! reading the timeline with `timeline.rs`). The checks compare the
//! learner's waits with the truth (`verdict.rs`, in the words of
//! `words.rs`), and ask again of each step drawn 50 times faster and
//! slower (`speed.rs`) and with its GPU times read a few microseconds late
//! (`clock.rs`).

mod clock;
mod draw;
mod runner;
mod scenes;
mod speed;
#[cfg(test)]
mod tests;
mod timeline;
mod verdict;
mod words;
#[cfg(test)]
mod wrong;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        verdict::finds_every_wait,
        "every call in which the CPU waited for the GPU: its CPU row lasts until GPU work queued before it ends",
        "profiling.md#where-the-cpu-waits",
        30,
    ),
    check!(
        verdict::reports_no_call_that_did_not_wait,
        "no call in which the CPU did not wait: a call that found the GPU done, host work, a slow call, the GPU work waited for",
        "profiling.md#where-the-cpu-waits",
        25,
        requires = [finds_every_wait],
    ),
    check!(
        verdict::names_each_wait,
        "each wait named by what the call is: a synchronize, an elapsed time, a pageable copy either way, a raw free",
        "profiling.md#where-the-cpu-waits",
        20,
        requires = [finds_every_wait],
    ),
    check!(
        verdict::each_wait_once_in_trace_order,
        "each wait once, in trace order",
        "profiling.md#what-a-profile-shows",
        10,
        requires = [finds_every_wait],
    ),
    check!(
        speed::same_waits_on_a_faster_or_slower_device,
        "the same waits when the step is drawn 50 times faster or slower: read against the GPU rows, not a fixed number of microseconds",
        "profiling.md#what-a-profile-shows",
        15,
        requires = [finds_every_wait],
    ),
    check!(
        clock::same_waits_with_the_gpu_times_read_late,
        "the same waits when the GPU's times are read a few microseconds late: the GPU's clock is placed on the CPU's only to within a few µs, so allow an end a little after the call's return",
        "profiling.md#where-the-cpu-waits",
        10,
        requires = [finds_every_wait],
    ),
];
