//! Exercise 107: which calls wait? A prediction, checked by the GPU.
//!
//! The judge draws short programs from the seed (`program.rs`: the
//! course's fixed seed, or one chosen at grading time), runs them on the
//! backend (`runner.rs`), reads each call's wait from the trace, and grades
//! the learner's `predict` call by call, one check per family of calls
//! (`verdict.rs`, in the words of `words.rs`).

mod program;
mod runner;
mod scenes;
#[cfg(test)]
mod tests;
mod verdict;
mod words;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        verdict::launches_records_and_queries_never_wait,
        "launches, graph launches, event records, stream waits for events and queries: the CPU never waits",
        "streams-and-events.md#waiting-on-the-gpu-against-waiting-on-the-cpu",
        20,
        requires = [synchronize_waits_for_what_it_names],
    ),
    check!(
        verdict::synchronize_waits_for_what_it_names,
        "an event, stream or device synchronize waits for what it names, when that is not done",
        "hidden-syncs.md#cpu-waits-and-gpu-waits",
        20,
    ),
    check!(
        verdict::a_raw_free_waits_for_the_device,
        "a raw free waits for every stream of the device",
        "hidden-syncs.md#allocation-and-free",
        15,
    ),
    check!(
        verdict::copies_to_the_host_wait_for_their_stream_unless_pinned,
        "a copy into pageable memory waits for its stream; into pinned memory it is queued",
        "hidden-syncs.md#reading-values",
        20,
    ),
    check!(
        verdict::copies_from_the_host_follow_the_staging_rules,
        "a copy from pageable memory: inline, staged (waiting for a full set of slots) or waiting for its stream, by size; from pinned memory it is queued",
        "hidden-syncs.md#pageable-copies",
        25,
    ),
];
