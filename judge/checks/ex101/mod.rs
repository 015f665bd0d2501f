//! Exercise 101: the caching allocator.
//!
//! Most checks drive the learner's allocator over its `SimDriver`, a
//! scripted device whose layouts are the same on every run, and compare
//! addresses, block layouts and statistics with the values PyTorch's rules
//! give (worked out in `allocator.md`). A seeded random workload checks the
//! invariants after every step. The last check runs on a GPU (real or
//! virtual) through a `Driver` over raw segments and events: a block freed
//! while another stream's slow kernel still reads it must not be reused.
//!
//! The suite is a folder: this `mod.rs` holds the table of checks, in the
//! order they run, and each submodule a theme's checks, each short; the
//! helpers they share are in `support`.

mod calls;
mod counters;
mod fit;
mod gpu;
mod invariants;
mod layout;
mod logged;
mod oom;
mod pending;
mod pools;
mod state;
mod streams;
mod support;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        pools::rounds_requests_to_512,
        "every request rounds up to a multiple of 512 bytes, at least 512",
        "allocator.md#rounding-and-pools",
        4,
    ),
    check!(
        pools::picks_the_pool_by_rounded_size,
        "up to 1 MiB is the small pool, above is the large pool, and the pools never share blocks",
        "allocator.md#rounding-and-pools",
        4,
    ),
    check!(
        pools::sizes_new_segments,
        "new segments are 2 MiB, 20 MiB, or the request rounded up to 2 MiB",
        "allocator.md#segments",
        5,
    ),
    check!(
        fit::best_fit_takes_the_smallest_then_lowest_address,
        "the smallest free block that fits is chosen, the lower address among equals",
        "allocator.md#best-fit",
        8,
    ),
    check!(
        fit::splits_small_blocks_when_512_bytes_remain,
        "a small block is split when at least 512 bytes remain",
        "allocator.md#split-and-merge",
        5,
    ),
    check!(
        fit::splits_large_blocks_only_above_1_mib,
        "a large block is split only when more than 1 MiB remains, else it is handed out whole",
        "allocator.md#split-and-merge",
        5,
    ),
    check!(
        fit::merges_with_both_neighbours,
        "a freed block merges with the free blocks before and after it",
        "allocator.md#split-and-merge",
        8,
    ),
    check!(
        streams::keeps_free_blocks_per_stream,
        "a block freed on one stream is not handed to another stream",
        "allocator.md#per-stream-pools",
        6,
    ),
    check!(
        streams::record_stream_defers_reuse_until_the_stream_finishes,
        "a freed block used by other streams is reused only after all of them finish",
        "allocator.md#record-stream",
        8,
    ),
    check!(
        streams::record_stream_on_the_own_stream_is_ignored,
        "recording a block's own stream changes nothing",
        "allocator.md#record-stream",
        3,
    ),
    check!(
        streams::empty_cache_waits_for_pending_frees,
        "empty_cache waits for pending frees and returns exactly the wholly free segments",
        "allocator.md#empty-cache",
        5,
    ),
    check!(
        oom::fragmentation_oom_explains_reserved_but_unallocated,
        "the fragmentation OOM has the right figures and says reserved but unallocated",
        "allocator.md#fragmentation",
        6,
    ),
    check!(
        oom::oom_releases_cached_segments_and_retries,
        "when the driver says no, pending frees are waited for, cached segments returned, and malloc retries once",
        "allocator.md#out-of-memory",
        6,
    ),
    check!(
        counters::statistics_follow_allocations,
        "allocated, active, reserved, peaks, inactive splits and driver calls are counted",
        "allocator.md#statistics",
        5,
    ),
    check!(
        counters::foreign_block_is_not_allocated,
        "freeing another allocator's block is NotAllocated and changes nothing",
        "allocator.md#free",
        3,
    ),
    check!(
        layout::layout_after_a_scripted_workload,
        "the snapshot after a scripted workload of three streams",
        "allocator.md#memory-snapshot",
        4,
    ),
    check!(
        invariants::random_workload_keeps_invariants,
        "a seeded random workload of three streams keeps every invariant, and exactly the right blocks pending, after every step",
        "allocator.md#invariants",
        7,
    ),
    check!(
        gpu::gpu_reuse_waits_for_a_slow_reader,
        "on the GPU, a block another stream still reads is not reused, and the reader's sum is right",
        "allocator.md#record-stream-on-the-gpu",
        8,
    ),
];

#[cfg(test)]
mod tests {
    #[test]
    fn the_solution_passes_every_check() {
        crate::tests::passes_every_check(101);
    }
}
