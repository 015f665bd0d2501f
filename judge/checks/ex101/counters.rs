//! The counters and a refused free: allocated, active, reserved, peaks,
//! inactive splits and driver calls after a scripted workload, and a free
//! of another allocator's block that must change nothing.

use super::support::{Because, MIB, S0, S1, Sim, Size, bytes, free, malloc, mb, sim};
use caching_allocator::{AllocError, SMALL_BUFFER, Stats};
use judge_harness::{Ctx, Failure, ensure_eq};

pub(super) fn statistics_follow_allocations(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let p = malloc(&mut a, 1000, S0)?;
    let split = |a: &Sim| {
        (
            a.stats().inactive_split,
            Size(a.stats().inactive_split_bytes),
        )
    };
    ensure_eq(
        split(&a),
        (1, Size(SMALL_BUFFER - 1024)),
        "(inactive_split, inactive_split_bytes) after malloc(1000)",
    )?;
    let q = malloc(&mut a, 1000, S0)?;
    ensure_eq(
        split(&a),
        (1, Size(SMALL_BUFFER - 2048)),
        "(inactive_split, inactive_split_bytes) after a second malloc(1000)",
    )?;
    free(&mut a, p)?;
    ensure_eq(
        split(&a),
        (2, Size(SMALL_BUFFER - 1024)),
        "(inactive_split, inactive_split_bytes) after freeing the first",
    )?;
    free(&mut a, q)?;
    ensure_eq(
        split(&a),
        (0, Size(0)),
        "(inactive_split, inactive_split_bytes) after freeing both: one unsplit free segment is not an inactive split",
    )
    .because(|| {
        "the segment is one free block again, whole: inactive_split counts only the free blocks of a segment that is split into several blocks".into()
    })?;
    let x = malloc(&mut a, mb(4), S0)?;
    let y = malloc(&mut a, mb(4), S0)?;
    a.record_stream(&y, S1);
    free(&mut a, y)?;
    ensure_eq(
        split(&a),
        (1, Size(mb(12))),
        "(inactive_split, inactive_split_bytes) with 4 MiB allocated, 4 MiB pending on stream 1 and 12 MiB free in one 20 MiB segment",
    )
    .because(|| {
        "a pending block is not cached yet (stream 1 may still use it): inactive_split counts only the free blocks of a split segment, here the 12 MiB".into()
    })?;
    ensure_eq(
        (
            Size(a.stats().allocated_bytes),
            Size(a.stats().active_bytes),
        ),
        (Size(mb(4)), Size(mb(8))),
        "(allocated_bytes, active_bytes) with a 4 MiB block freed but pending on stream 1: allocated drops at free, active when the stream is done",
    )
    .because(|| {
        "allocated drops at free, pending or not; active counts the pending block until its events complete, since stream 1 may still use it".into()
    })?;
    a.driver_mut().finish(S1);
    let z = malloc(&mut a, MIB, S0)?;
    free(&mut a, x)?;
    free(&mut a, z)?;
    a.empty_cache();
    let expected = Stats {
        allocated_bytes: 0,
        reserved_bytes: 0,
        active_bytes: 0,
        peak_allocated_bytes: mb(8),
        peak_reserved_bytes: mb(22),
        inactive_split: 0,
        inactive_split_bytes: 0,
        num_alloc_retries: 0,
        num_ooms: 0,
        num_device_alloc: 2,
        num_device_free: 2,
    };
    let got = a.stats();
    ensure_eq(
        got.clone(),
        expected.clone(),
        "stats after malloc(1000) twice, 4 MiB twice (one pending on stream 1), 1 MiB, all freed and empty_cache",
    )
    .because(|| stats_rule(&got, &expected))
}

/// The first statistic that differs, and its rule.
fn stats_rule(got: &Stats, want: &Stats) -> String {
    let rows = [
        (
            "peak_allocated_bytes",
            got.peak_allocated_bytes,
            want.peak_allocated_bytes,
            "the peak is the largest allocated figure ever reached, taken after each malloc has added its block",
        ),
        (
            "peak_reserved_bytes",
            got.peak_reserved_bytes,
            want.peak_reserved_bytes,
            "the peak is the largest reserved figure ever reached, taken after each new segment",
        ),
        (
            "num_device_alloc",
            got.num_device_alloc,
            want.num_device_alloc,
            "one per segment asked of the driver",
        ),
        (
            "num_device_free",
            got.num_device_free,
            want.num_device_free,
            "one per segment returned to the driver",
        ),
        (
            "allocated_bytes",
            got.allocated_bytes,
            want.allocated_bytes,
            "everything was freed",
        ),
        (
            "reserved_bytes",
            got.reserved_bytes,
            want.reserved_bytes,
            "empty_cache returned every segment",
        ),
        (
            "active_bytes",
            got.active_bytes,
            want.active_bytes,
            "no block is allocated or pending",
        ),
    ];
    rows.iter()
        .find(|r| r.1 != r.2)
        .map(|(name, g, w, rule)| format!("{name} is {g}, not {w}: {rule}"))
        .unwrap_or_else(|| "a counter differs: see each counter's rule in the chapter".into())
}

/// What a refused free changed, and the rule.
fn refused_free_changed(
    before: &(Vec<caching_allocator::SegmentInfo>, Stats),
    after: &(Vec<caching_allocator::SegmentInfo>, Stats),
) -> String {
    let (b, a) = (&before.1, &after.1);
    let fields = [
        ("allocated_bytes", b.allocated_bytes, a.allocated_bytes),
        ("reserved_bytes", b.reserved_bytes, a.reserved_bytes),
        ("active_bytes", b.active_bytes, a.active_bytes),
        (
            "inactive_split_bytes",
            b.inactive_split_bytes,
            a.inactive_split_bytes,
        ),
    ];
    let mut changed: Vec<String> = fields
        .iter()
        .filter(|(_, x, y)| x != y)
        .map(|(name, x, y)| format!("{name} from {} to {}", bytes(*x), bytes(*y)))
        .collect();
    if before.0 != after.0 {
        changed.push("the blocks of the snapshot".into());
    }
    format!(
        "the refused free changed {}: a free that fails changes nothing, so check that the block is one this allocator holds as allocated before touching any counter or block",
        changed.join(", ")
    )
}

pub(super) fn foreign_block_is_not_allocated(_: &Ctx) -> Result<(), Failure> {
    let mut mine = sim(mb(64));
    let mut other = sim(mb(64));
    let x = malloc(&mut mine, 1000, S0)?;
    let y = malloc(&mut other, 1000, S0)?;
    let z = malloc(&mut other, mb(5), S0)?;
    let before = (mine.snapshot(), mine.stats());
    for (block, addr) in [(y, 0), (z, mb(2) as u64)] {
        let result = mine.free(block);
        let accepted = result.is_ok();
        ensure_eq(
            result,
            Err(AllocError::NotAllocated { addr }),
            "free of another allocator's block (its address may match one of ours)",
        )
        .because(|| {
            if accepted {
                "free accepted a block this allocator never handed out, because its address matches one of ours: free must find the block among its own allocated blocks, not trust the address alone".into()
            } else {
                "a block this allocator never handed out is NotAllocated, with its address".into()
            }
        })?;
        let after = (mine.snapshot(), mine.stats());
        ensure_eq(
            &after,
            &before,
            "the snapshot and stats after that refused free (unchanged)",
        )
        .because(|| refused_free_changed(&before, &after))?;
    }
    free(&mut mine, x)
}
