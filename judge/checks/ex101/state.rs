//! The invariants of the allocator's state, checked after every step of
//! the random workload: segments by address and of the pools' sizes, blocks
//! that tile their segment with no two free ones side by side, and counters
//! equal to the sums of the snapshot; each failure says which rule broke.

use super::support::{Because, MIB, Sim, bytes, ensure};
use caching_allocator::{Block, BlockState, LARGE_BUFFER, Pool, SMALL_BUFFER, StreamId};
use judge_harness::Failure;
use std::collections::BTreeMap;

/// The random workload's device.
pub(super) const CAPACITY: usize = 96 << 20;

/// Every invariant of the allocator's state.
pub(super) fn check_invariants(a: &Sim, live: &[Block]) -> Result<(), Failure> {
    let snapshot = a.snapshot();
    let mut sums = BTreeMap::<&str, usize>::new();
    let mut allocated = BTreeMap::new();
    let mut previous_end = 0;
    for s in &snapshot {
        ensure(
            s.base >= previous_end,
            "segments by address, not overlapping",
            || {
                format!(
                    "a segment at {:#x} before the end of the previous one ({previous_end:#x})",
                    s.base
                )
            },
        )?;
        previous_end = s.base + s.size as u64;
        check_segment_size(s.size, s.pool)?;
        check_tiling(s)?;
        *sums.entry("reserved").or_default() += s.size;
        for b in &s.blocks {
            match b.state {
                BlockState::Allocated => {
                    *sums.entry("allocated").or_default() += b.size;
                    allocated.insert(b.addr, (b.size, s.stream));
                }
                BlockState::PendingFree => *sums.entry("pending").or_default() += b.size,
                BlockState::Free => {}
            }
        }
    }
    let sum = |key| sums.get(key).copied().unwrap_or(0);
    check_totals(
        a,
        sum("allocated"),
        sum("reserved"),
        sum("allocated") + sum("pending"),
    )?;
    let handles: BTreeMap<u64, (usize, StreamId)> = live
        .iter()
        .map(|b| (b.addr(), (b.size(), b.stream())))
        .collect();
    ensure(
        handles == allocated,
        "the allocated blocks of the snapshot to be exactly the live blocks (address, size, stream)",
        || {
            format!(
                "{} allocated blocks in the snapshot for {} live blocks; first difference at {:#x}",
                allocated.len(),
                handles.len(),
                first_difference(&handles, &allocated)
            )
        },
    )
}

fn check_segment_size(size: usize, pool: Pool) -> Result<(), Failure> {
    let ok = match pool {
        Pool::Small => size == SMALL_BUFFER,
        Pool::Large => size == LARGE_BUFFER || (size >= 10 * MIB && size.is_multiple_of(2 * MIB)),
    };
    ensure(
        ok,
        "small segments of 2 MiB, large ones of 20 MiB or a multiple of 2 MiB from 10 MiB",
        || format!("a {pool:?} segment of {}", bytes(size)),
    )
    .because(|| segment_size_rule(size, pool))
}

/// Which rule a segment of `size` in `pool` breaks.
pub(super) fn segment_size_rule(size: usize, pool: Pool) -> String {
    match pool {
        Pool::Large if size == SMALL_BUFFER => "a large-pool request under 10 MiB got a 2 MiB segment, the small pool's size: the segment follows the pool, so every large request (rounded above 1 MiB, SMALL_SIZE) under 10 MiB gets a 20 MiB segment (LARGE_BUFFER); compare the rounded request with SMALL_SIZE, not SMALL_BUFFER".into(),
        Pool::Large => "a large segment is 20 MiB for a request under 10 MiB, else the rounded request rounded up again to a multiple of 2 MiB".into(),
        Pool::Small => "every small-pool segment is 2 MiB (SMALL_BUFFER)".into(),
    }
}

fn check_tiling(s: &caching_allocator::SegmentInfo) -> Result<(), Failure> {
    let mut next = s.base;
    let mut last_free = false;
    for b in &s.blocks {
        ensure(
            b.addr == next && b.size > 0 && b.size % 512 == 0,
            "blocks that tile their segment: each starts where the previous ends, a positive multiple of 512 bytes",
            || {
                format!(
                    "in the segment at {:#x}, a block of {} at {:#x} where one should start at {next:#x}",
                    s.base,
                    bytes(b.size),
                    b.addr
                )
            },
        )?;
        let is_free = b.state == BlockState::Free;
        ensure(
            !(is_free && last_free),
            "no two adjacent free blocks (a freed block merges with free neighbours)",
            || {
                format!(
                    "two adjacent free blocks in the segment at {:#x}, the second at {:#x}: they were not merged",
                    s.base, b.addr
                )
            },
        )?;
        last_free = is_free;
        next = b.addr + b.size as u64;
    }
    ensure(
        next == s.base + s.size as u64,
        "blocks that cover their segment to its end",
        || {
            format!(
                "the blocks of the segment at {:#x} end at {next:#x}, the segment at {:#x}",
                s.base,
                s.base + s.size as u64
            )
        },
    )
}

fn check_totals(a: &Sim, allocated: usize, reserved: usize, active: usize) -> Result<(), Failure> {
    let s = a.stats();
    let figures = (
        a.memory_allocated(),
        s.allocated_bytes,
        a.memory_reserved(),
        s.reserved_bytes,
        s.active_bytes,
    );
    ensure(
        figures == (allocated, allocated, reserved, reserved, active),
        "(memory_allocated, allocated_bytes, memory_reserved, reserved_bytes, active_bytes) equal to the sums of the snapshot's allocated blocks, segments, and allocated plus pending blocks",
        || format!("{figures:?} for sums {:?}", (allocated, reserved, active)),
    )
    .because(|| totals_rule(figures, allocated, reserved, active))?;
    ensure(
        reserved <= CAPACITY,
        "reserved memory within the device's capacity",
        || format!("{} reserved", bytes(reserved)),
    )?;
    ensure(
        s.peak_allocated_bytes >= allocated && s.peak_reserved_bytes >= reserved,
        "peaks at least the current figures",
        || {
            format!(
                "peaks {:?} for current {:?}",
                (s.peak_allocated_bytes, s.peak_reserved_bytes),
                (allocated, reserved)
            )
        },
    )
}

/// Which counter is off, by how much, and the rule it breaks.
fn totals_rule(
    (memory_allocated, allocated_bytes, memory_reserved, reserved_bytes, active_bytes): (
        usize,
        usize,
        usize,
        usize,
        usize,
    ),
    allocated: usize,
    reserved: usize,
    active: usize,
) -> String {
    let off = |name: &str, got: usize, want: usize, rule: &str| {
        (got != want).then(|| {
            format!(
                "{name} is {} where the snapshot sums to {} ({} {}): {rule}",
                bytes(got),
                bytes(want),
                bytes(got.abs_diff(want)),
                if got > want { "too many" } else { "too few" }
            )
        })
    };
    let allocated_rule = "allocated counts the allocated blocks, each at its size: it grows at malloc by the size of the block handed out (the rounded request, or the whole block when the rest is too small to split off), not by the request, and drops at free, pending or not";
    let reserved_rule = "reserved counts the segments held from the driver: it grows when a segment is allocated and drops only when one is returned";
    let active_rule = "active counts the allocated and the pending blocks: a block freed while another stream may use it stays active until its events complete";
    [
        off(
            "memory_allocated",
            memory_allocated,
            allocated,
            allocated_rule,
        ),
        off(
            "allocated_bytes",
            allocated_bytes,
            allocated,
            allocated_rule,
        ),
        off("memory_reserved", memory_reserved, reserved, reserved_rule),
        off("reserved_bytes", reserved_bytes, reserved, reserved_rule),
        off("active_bytes", active_bytes, active, active_rule),
    ]
    .into_iter()
    .flatten()
    .next()
    .unwrap_or_default()
}

fn first_difference(
    a: &BTreeMap<u64, (usize, StreamId)>,
    b: &BTreeMap<u64, (usize, StreamId)>,
) -> u64 {
    a.iter()
        .zip(b.iter())
        .find(|(x, y)| x != y)
        .map(|(x, y)| *x.0.min(y.0))
        .or_else(|| a.keys().chain(b.keys()).copied().max())
        .unwrap_or(0)
}
