//! Exercise 114: one stream's free list, with `record_stream`.
//!
//! The checks run the learner's `StreamAllocator` through short scripts of
//! `malloc`, `record_stream` and `free` on the judge's device, with 1 MiB
//! blocks that the owner stream fills and slow kernels on other streams
//! read, and keep the trace of every call of the allocator: the segments
//! it asked for, the events it recorded (on which stream, in which call),
//! the events it asked, and any call that made the CPU wait. The readers'
//! sums and the race checker say whether a block was reused too early;
//! the trace says why.

mod back;
mod owner;
mod side;
mod support;
#[cfg(test)]
mod tests;
mod waits;
#[cfg(test)]
mod wrong;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        owner::the_owner_reuses_at_once,
        "a block freed by the owner alone comes back from the next `malloc` of its size, with no new segment and no event; another size gets its own segment",
        "allocator.md#record-stream",
        25,
    ),
    check!(
        side::a_block_another_stream_reads_waits,
        "a block noted with `record_stream` is not handed out while the noted stream still reads it: the reader's sum is exact, no race",
        "allocator.md#record-stream",
        25,
        requires = [the_cpu_never_waits],
    ),
    check!(
        back::a_pending_block_comes_back,
        "once the noted stream has finished, the next `malloc` of the size gets the pending block, with no new segment",
        "allocator.md#record-stream",
        15,
        requires = [the_cpu_never_waits],
    ),
    check!(
        back::events_complete_in_any_order,
        "each pending block comes back when its own events have all completed, whatever the order its streams finish in",
        "allocator.md#record-stream",
        15,
        requires = [the_cpu_never_waits],
    ),
    check!(
        waits::the_cpu_never_waits,
        "`malloc`, `record_stream` and `free` never make the CPU wait: events are asked with `query`, never waited for",
        "allocator.md#record-stream",
        20,
    ),
];
