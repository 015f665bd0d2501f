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
//! The judge includes one file per exercise, so the suite is one file: a
//! table of alike checks, each short, and the helpers they share.

use caching_allocator::{
    AllocError, Block, BlockState, CachingAllocator, Driver, LARGE_BUFFER, Pool, SMALL_BUFFER,
    SimDriver, Stats, StreamId,
};
use judge_harness::{Check, Ctx, Failure, ensure_eq};
use std::collections::BTreeMap;
use std::time::Duration;

pub(crate) const CHECKS: &[Check] = &[
    check(
        "rounds_requests_to_512",
        "every request rounds up to a multiple of 512 bytes, at least 512",
        "allocator.md#rounding-and-pools",
        4,
        rounds_requests_to_512,
    ),
    check(
        "picks_the_pool_by_rounded_size",
        "up to 1 MiB is the small pool, above is the large pool, and the pools never share blocks",
        "allocator.md#rounding-and-pools",
        4,
        picks_the_pool_by_rounded_size,
    ),
    check(
        "sizes_new_segments",
        "new segments are 2 MiB, 20 MiB, or the request rounded up to 2 MiB",
        "allocator.md#segments",
        5,
        sizes_new_segments,
    ),
    check(
        "best_fit_takes_the_smallest_then_lowest_address",
        "the smallest free block that fits is chosen, the lower address among equals",
        "allocator.md#best-fit",
        8,
        best_fit_takes_the_smallest_then_lowest_address,
    ),
    check(
        "splits_small_blocks_when_512_bytes_remain",
        "a small block is split when at least 512 bytes remain",
        "allocator.md#split-and-merge",
        5,
        splits_small_blocks_when_512_bytes_remain,
    ),
    check(
        "splits_large_blocks_only_above_1_mib",
        "a large block is split only when more than 1 MiB remains, else it is handed out whole",
        "allocator.md#split-and-merge",
        5,
        splits_large_blocks_only_above_1_mib,
    ),
    check(
        "merges_with_both_neighbours",
        "a freed block merges with the free blocks before and after it",
        "allocator.md#split-and-merge",
        8,
        merges_with_both_neighbours,
    ),
    check(
        "keeps_free_blocks_per_stream",
        "a block freed on one stream is not handed to another stream",
        "allocator.md#per-stream-pools",
        6,
        keeps_free_blocks_per_stream,
    ),
    check(
        "record_stream_defers_reuse_until_the_stream_finishes",
        "a freed block used by other streams is reused only after all of them finish",
        "allocator.md#record-stream",
        8,
        record_stream_defers_reuse,
    ),
    check(
        "record_stream_on_the_own_stream_is_ignored",
        "recording a block's own stream changes nothing",
        "allocator.md#record-stream",
        3,
        record_stream_on_the_own_stream_is_ignored,
    ),
    check(
        "empty_cache_waits_for_pending_frees",
        "empty_cache waits for pending frees and returns exactly the wholly free segments",
        "allocator.md#empty-cache",
        5,
        empty_cache_waits_for_pending_frees,
    ),
    check(
        "fragmentation_oom_explains_reserved_but_unallocated",
        "the fragmentation OOM has the right figures and says reserved but unallocated",
        "allocator.md#fragmentation",
        6,
        fragmentation_oom_explains_itself,
    ),
    check(
        "oom_releases_cached_segments_and_retries",
        "when the driver says no, pending frees are waited for, cached segments returned, and malloc retries once",
        "allocator.md#out-of-memory",
        6,
        oom_releases_cached_segments_and_retries,
    ),
    check(
        "statistics_follow_allocations",
        "allocated, active, reserved, peaks, inactive splits and driver calls are counted",
        "allocator.md#statistics",
        5,
        statistics_follow_allocations,
    ),
    check(
        "foreign_block_is_not_allocated",
        "freeing another allocator's block is NotAllocated and changes nothing",
        "allocator.md#free",
        3,
        foreign_block_is_not_allocated,
    ),
    check(
        "layout_after_a_scripted_workload",
        "the snapshot after a scripted workload of three streams",
        "allocator.md#memory-snapshot",
        4,
        layout_after_a_scripted_workload,
    ),
    check(
        "random_workload_keeps_invariants",
        "a seeded random workload keeps every invariant after every step",
        "allocator.md#invariants",
        7,
        random_workload_keeps_invariants,
    ),
    check(
        "gpu_reuse_waits_for_a_slow_reader",
        "on the GPU, a block another stream still reads is not reused, and the reader's sum is right",
        "allocator.md#record-stream-on-the-gpu",
        8,
        gpu_reuse_waits_for_a_slow_reader,
    ),
];

const fn check(
    name: &'static str,
    title: &'static str,
    section: &'static str,
    points: u32,
    run: fn(&Ctx) -> Result<(), Failure>,
) -> Check {
    Check {
        name,
        title,
        section,
        points,
        run,
    }
}

// ---------------------------------------------------------------- helpers

const KIB: usize = 1 << 10;
const MIB: usize = 1 << 20;
const S0: StreamId = StreamId(0);
const S1: StreamId = StreamId(1);
const S2: StreamId = StreamId(2);
const S3: StreamId = StreamId(3);
const ALLOC: BlockState = BlockState::Allocated;
const PEND: BlockState = BlockState::PendingFree;
const FREE: BlockState = BlockState::Free;

type Sim = CachingAllocator<SimDriver>;
/// A block as `(address, size, state)`.
type Row = (u64, usize, BlockState);

fn sim(capacity: usize) -> Sim {
    CachingAllocator::new(SimDriver::new(capacity))
}

/// `n` bytes for people: `3000 B`, `3 KiB`, `20 MiB`, `1 MiB + 512 B`.
fn bytes(n: usize) -> String {
    if n < 64 * KIB && n % KIB != 0 {
        return format!("{n} B");
    }
    let (mib, kib, b) = (n / MIB, n % MIB / KIB, n % KIB);
    let parts: Vec<String> = [(mib, "MiB"), (kib, "KiB"), (b, "B")]
        .iter()
        .filter(|(v, _)| *v > 0)
        .map(|(v, unit)| format!("{v} {unit}"))
        .collect();
    if parts.is_empty() {
        "0 B".into()
    } else {
        parts.join(" + ")
    }
}

fn at(addr: u64) -> String {
    if addr == 0 {
        "0".into()
    } else {
        bytes(addr as usize)
    }
}

/// A byte count that prints for people in a failure.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Size(usize);

impl std::fmt::Debug for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&bytes(self.0))
    }
}

/// A segment as `(base, size, stream, pool)`, printed for people.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Seg(u64, usize, StreamId, Pool);

impl std::fmt::Debug for Seg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Seg(base, size, stream, pool) = *self;
        write!(
            f,
            "{pool:?} segment of {} at {} for stream {}",
            bytes(size),
            at(base),
            stream.0
        )
    }
}

fn render(rows: &[Row]) -> String {
    let row = |&(addr, size, state): &Row| {
        let state = match state {
            BlockState::Allocated => "allocated",
            BlockState::PendingFree => "pending free",
            BlockState::Free => "free",
        };
        format!("{} {state} at {}", bytes(size), at(addr))
    };
    format!("[{}]", rows.iter().map(row).collect::<Vec<_>>().join(", "))
}

fn mb(n: usize) -> usize {
    n * MIB
}

fn malloc(a: &mut Sim, size: usize, stream: StreamId) -> Result<Block, Failure> {
    a.malloc(size, stream).map_err(|e| {
        Failure::new(
            format!("malloc({}, stream {}) to succeed", bytes(size), stream.0),
            format!("{e:?}: {e}"),
        )
    })
}

fn free(a: &mut Sim, block: Block) -> Result<(), Failure> {
    let addr = block.addr();
    a.free(block).map_err(|e| {
        Failure::new(
            format!("free of the block at {} to succeed", at(addr)),
            format!("{e:?}"),
        )
    })
}

/// Fails unless `block` is at `addr`.
fn ensure_at(block: &Block, addr: usize, what: &str) -> Result<(), Failure> {
    if block.addr() == addr as u64 {
        return Ok(());
    }
    Err(Failure::new(
        format!("{what}: a block at {}", at(addr as u64)),
        format!("a block at {} ({})", at(block.addr()), bytes(block.size())),
    ))
}

/// Fails unless `block` is `size` bytes at `addr`.
fn ensure_block(block: &Block, addr: usize, size: usize, what: &str) -> Result<(), Failure> {
    if (block.addr(), block.size()) == (addr as u64, size) {
        return Ok(());
    }
    Err(Failure::new(
        format!("{what}: {} at {}", bytes(size), at(addr as u64)),
        format!("{} at {}", bytes(block.size()), at(block.addr())),
    ))
}

/// The blocks of the segment at `base` (none when there is no such segment).
fn rows(a: &Sim, base: usize) -> Vec<Row> {
    a.snapshot()
        .into_iter()
        .find(|s| s.base == base as u64)
        .map(|s| s.blocks.iter().map(|b| (b.addr, b.size, b.state)).collect())
        .unwrap_or_default()
}

/// Fails unless the segment at `base` holds exactly `expected`.
fn ensure_rows(a: &Sim, base: usize, expected: &[Row], what: &str) -> Result<(), Failure> {
    let actual = rows(a, base);
    if actual == expected {
        return Ok(());
    }
    Err(Failure::new(
        format!("{what}: {}", render(expected)),
        render(&actual),
    ))
}

/// The segments, by address.
fn segments(a: &Sim) -> Vec<Seg> {
    let snapshot = a.snapshot();
    snapshot
        .iter()
        .map(|s| Seg(s.base, s.size, s.stream, s.pool))
        .collect()
}

fn ensure(
    ok: bool,
    expected: impl Into<String>,
    actual: impl FnOnce() -> String,
) -> Result<(), Failure> {
    if ok {
        Ok(())
    } else {
        Err(Failure::new(expected, actual()))
    }
}

// ------------------------------------------------- rounding, pools, segments

fn rounds_requests_to_512(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let cases = [
        (0, 512),
        (1, 512),
        (511, 512),
        (512, 512),
        (513, 1024),
        (1000, 1024),
        (1024, 1024),
        (1025, 1536),
    ];
    let mut next = 0;
    for (request, rounded) in cases {
        let block = malloc(&mut a, request, S0)?;
        ensure_block(
            &block,
            next,
            rounded,
            &format!(
                "malloc({request}) rounds up to a multiple of 512 (at least 512) and takes the front of the small segment's free block"
            ),
        )?;
        next += rounded;
    }
    Ok(())
}

fn picks_the_pool_by_rounded_size(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let one = malloc(&mut a, MIB, S0)?;
    let above = malloc(&mut a, MIB + 1, S0)?;
    ensure_eq(
        segments(&a),
        vec![
            Seg(0, SMALL_BUFFER, S0, Pool::Small),
            Seg(mb(2) as u64, LARGE_BUFFER, S0, Pool::Large),
        ],
        "the segments after malloc(1 MiB) and malloc(1 MiB + 1 B): 1 MiB is small, anything above is large",
    )?;
    ensure_block(
        &above,
        mb(2),
        MIB + 512,
        "malloc(1 MiB + 1 B) rounds up to 1 MiB + 512 B",
    )?;
    free(&mut a, one)?;
    free(&mut a, above)?;
    let large = malloc(&mut a, 3 * MIB / 2, S0)?;
    ensure_at(
        &large,
        mb(2),
        "malloc(1.5 MiB) with a free 2 MiB small segment at 0 and a free 20 MiB large one at 2 MiB: the large pool's block (pools never share blocks)",
    )?;
    let small = malloc(&mut a, 4096, S0)?;
    ensure_at(&small, 0, "malloc(4 KiB) then comes from the small pool")
}

fn sizes_new_segments(_: &Ctx) -> Result<(), Failure> {
    let cases = [
        (1000, mb(2)),
        (MIB, mb(2)),
        (mb(5), mb(20)),
        (mb(10) - 512, mb(20)),
        (mb(10) - 1, mb(10)),
        (mb(10), mb(10)),
        (mb(12) + 1, mb(14)),
        (mb(19) + 1, mb(20)),
        (mb(30), mb(30)),
    ];
    for (request, segment) in cases {
        let mut a = sim(mb(1024));
        malloc(&mut a, request, S0)?;
        let sizes: Vec<usize> = a.snapshot().iter().map(|s| s.size).collect();
        ensure(
            sizes == [segment],
            format!(
                "malloc({}) on an empty allocator to open one segment of {} (2 MiB for the small pool, 20 MiB under 10 MiB, else the request rounded up to 2 MiB)",
                bytes(request),
                bytes(segment)
            ),
            || {
                format!(
                    "segments of {}",
                    sizes
                        .iter()
                        .map(|&s| bytes(s))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            },
        )?;
    }
    let mut a = sim(mb(64));
    ensure_block(
        &malloc(&mut a, 1000, S0)?,
        0,
        1024,
        "the statement's example: malloc(1000)",
    )?;
    ensure_block(
        &malloc(&mut a, mb(5), S0)?,
        mb(2),
        mb(5),
        "then malloc(5 MiB)",
    )?;
    ensure_eq(
        (Size(a.memory_allocated()), Size(a.memory_reserved())),
        (Size(1024 + mb(5)), Size(mb(22))),
        "(memory_allocated, memory_reserved) after the statement's example",
    )
}

// ---------------------------------------------------------- best fit, split

fn best_fit_takes_the_smallest_then_lowest_address(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let sizes = [8 * KIB, KIB, 4 * KIB, KIB, 4 * KIB, KIB];
    let mut blocks: Vec<Option<Block>> = Vec::new();
    for size in sizes {
        blocks.push(Some(malloc(&mut a, size, S0)?));
    }
    for i in [4, 0, 2] {
        free(&mut a, blocks[i].take().expect("allocated"))?;
    }
    // Free now: 8 KiB at 0, 4 KiB at 9 KiB, 4 KiB at 14 KiB, the rest of the segment at 19 KiB.
    let steps = [
        (
            3000,
            9 * KIB,
            "the smaller 4 KiB blocks beat the 8 KiB one, and of the two the lower address (9 KiB) wins",
        ),
        (
            4096,
            14 * KIB,
            "the other 4 KiB block fits exactly (the 1 KiB left at 12 KiB is too small)",
        ),
        (
            4096,
            0,
            "the 8 KiB block at 0 is now the smallest that fits, not the end of the segment",
        ),
        (6000, 19 * KIB, "only the end of the segment holds 6 KiB"),
    ];
    let free_blocks = "free blocks of 8 KiB at 0, 4 KiB at 9 KiB, 4 KiB at 14 KiB and the rest of the segment at 19 KiB";
    for (request, addr, why) in steps {
        let block = malloc(&mut a, request, S0)?;
        ensure_at(
            &block,
            addr,
            &format!("best fit for malloc({request}) with {free_blocks}: {why}"),
        )?;
    }
    Ok(())
}

fn splits_small_blocks_when_512_bytes_remain(_: &Ctx) -> Result<(), Failure> {
    let rest = SMALL_BUFFER - 2048;
    let mut a = sim(mb(64));
    let p = malloc(&mut a, 1000, S0)?;
    ensure_rows(
        &a,
        0,
        &[(0, 1024, ALLOC), (1024, SMALL_BUFFER - 1024, FREE)],
        "malloc(1000) in a new small segment splits off the rest",
    )?;
    free(&mut a, p)?;
    for (request, expected, what) in [
        (
            1024,
            vec![
                (0, 1024, ALLOC),
                (1024, 512, FREE),
                (1536, 512, ALLOC),
                (2048, rest, FREE),
            ],
            "a 1.5 KiB free block and malloc(1 KiB): exactly 512 B remain, and that is split off",
        ),
        (
            1536,
            vec![(0, 1536, ALLOC), (1536, 512, ALLOC), (2048, rest, FREE)],
            "a 1.5 KiB free block and malloc(1.5 KiB): an exact fit, nothing to split",
        ),
    ] {
        let mut a = sim(mb(64));
        let p = malloc(&mut a, 1536, S0)?;
        let _g = malloc(&mut a, 512, S0)?;
        free(&mut a, p)?;
        let q = malloc(&mut a, request, S0)?;
        ensure_block(&q, 0, request, what)?;
        ensure_rows(&a, 0, &expected, what)?;
    }
    Ok(())
}

fn splits_large_blocks_only_above_1_mib(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let whole = malloc(&mut a, mb(19), S0)?;
    ensure_block(
        &whole,
        0,
        mb(20),
        "malloc(19 MiB) in a new 20 MiB segment: only 1 MiB would remain, not more than 1 MiB, so the whole block is handed out",
    )?;
    ensure_eq(
        Size(a.memory_allocated()),
        Size(mb(20)),
        "memory_allocated counts the whole 20 MiB block",
    )?;
    let mut a = sim(mb(64));
    malloc(&mut a, mb(19) - 512, S0)?;
    ensure_rows(
        &a,
        0,
        &[
            (0, mb(19) - 512, ALLOC),
            (mb(19) as u64 - 512, MIB + 512, FREE),
        ],
        "malloc(19 MiB - 512 B): 1 MiB + 512 B remain, more than 1 MiB, so the rest is split off",
    )?;
    let mut a = sim(mb(200));
    malloc(&mut a, mb(5), S0)?;
    let b = malloc(&mut a, mb(14) + MIB / 2, S0)?;
    ensure_block(
        &b,
        mb(5),
        mb(15),
        "malloc(5 MiB) then malloc(14.5 MiB): the second takes the free 15 MiB whole (0.5 MiB would remain)",
    )?;
    ensure_eq(
        Size(a.memory_allocated()),
        Size(mb(20)),
        "memory_allocated after malloc(5 MiB) and malloc(14.5 MiB)",
    )
}

// ---------------------------------------------------------------- merging

fn merges_with_both_neighbours(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let mut x = Vec::new();
    for _ in 0..4 {
        x.push(Some(malloc(&mut a, mb(4), S0)?));
    }
    let mut free_x = |a: &mut Sim, i: usize| free(a, x[i].take().expect("allocated"));
    free_x(&mut a, 1)?;
    free_x(&mut a, 2)?;
    let (m4, m8, m12, m16) = (mb(4) as u64, mb(8), mb(12) as u64, mb(16) as u64);
    ensure_rows(
        &a,
        0,
        &[
            (0, mb(4), ALLOC),
            (m4, m8, FREE),
            (m12, mb(4), ALLOC),
            (m16, mb(4), FREE),
        ],
        "four 4 MiB blocks in a 20 MiB segment, then free the 2nd and 3rd: the freed block merges with the free block before it",
    )?;
    free_x(&mut a, 0)?;
    ensure_rows(
        &a,
        0,
        &[(0, mb(12), FREE), (m12, mb(4), ALLOC), (m16, mb(4), FREE)],
        "then free the 1st: it merges with the free block after it",
    )?;
    free_x(&mut a, 3)?;
    ensure_rows(
        &a,
        0,
        &[(0, mb(20), FREE)],
        "then free the 4th: it merges with both neighbours into one block",
    )?;
    let all = malloc(&mut a, mb(20), S0)?;
    ensure_block(
        &all,
        0,
        mb(20),
        "malloc(20 MiB) then reuses the merged block",
    )?;
    ensure_eq(
        Size(a.memory_reserved()),
        Size(mb(20)),
        "memory_reserved (no new segment)",
    )
}

// ------------------------------------------------------ streams, record_stream

fn keeps_free_blocks_per_stream(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let x = malloc(&mut a, 4096, S0)?;
    free(&mut a, x)?;
    let y = malloc(&mut a, 4096, S1)?;
    ensure_at(
        &y,
        mb(2),
        "malloc(4 KiB) on stream 1 after a block of stream 0 was freed: a new small segment for stream 1, not stream 0's block",
    )?;
    let z = malloc(&mut a, 4096, S0)?;
    ensure_at(&z, 0, "malloc(4 KiB) on stream 0 reuses its freed block")?;
    let l = malloc(&mut a, mb(5), S0)?;
    ensure_at(&l, mb(4), "malloc(5 MiB) on stream 0 opens a large segment")?;
    free(&mut a, l)?;
    let m = malloc(&mut a, mb(5), S1)?;
    ensure_at(
        &m,
        mb(24),
        "malloc(5 MiB) on stream 1 after stream 0 freed its 5 MiB: a new large segment for stream 1",
    )?;
    let streams: Vec<u32> = a.snapshot().iter().map(|s| s.stream.0).collect();
    ensure_eq(
        streams,
        vec![0, 1, 0, 1],
        "the streams of the segments, by address",
    )
}

fn record_stream_defers_reuse(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let x = malloc(&mut a, MIB, S0)?;
    a.record_stream(&x, S1);
    free(&mut a, x)?;
    ensure_rows(
        &a,
        0,
        &[(0, MIB, PEND), (MIB as u64, MIB, FREE)],
        "a 1 MiB block recorded on stream 1, then freed: pending free until stream 1's work finishes",
    )?;
    let y = malloc(&mut a, MIB, S0)?;
    ensure(
        y.addr() != 0,
        "malloc(1 MiB) while stream 1 may still use the freed block at 0: the free block at 1 MiB, no reuse of the pending one",
        || {
            format!(
                "a reuse: malloc handed out the pending block at {} while stream 1 may still use it",
                at(y.addr())
            )
        },
    )?;
    a.driver_mut().finish(S1);
    let z = malloc(&mut a, MIB, S0)?;
    ensure_at(
        &z,
        0,
        "after stream 1 finishes, the next malloc(1 MiB) notices its event and reuses the block",
    )?;
    let w = malloc(&mut a, 4096, S0)?;
    ensure_at(
        &w,
        mb(2),
        "malloc(4 KiB) on a full small segment opens another",
    )?;
    a.record_stream(&w, S1);
    a.record_stream(&w, S2);
    free(&mut a, w)?;
    a.driver_mut().finish(S1);
    let v = malloc(&mut a, 4096, S0)?;
    ensure(
        v.addr() != mb(2) as u64,
        "with streams 1 and 2 recorded and only stream 1 finished, no reuse of the block at 2 MiB",
        || {
            format!(
                "a reuse: malloc handed out the block at {} while stream 2 may still use it",
                at(v.addr())
            )
        },
    )?;
    a.driver_mut().finish(S2);
    let u = malloc(&mut a, 4096, S0)?;
    ensure_at(
        &u,
        mb(2),
        "once both recorded streams finish, the block at 2 MiB is reused",
    )
}

fn record_stream_on_the_own_stream_is_ignored(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let x = malloc(&mut a, 4096, S0)?;
    a.record_stream(&x, S0);
    free(&mut a, x)?;
    ensure_rows(
        &a,
        0,
        &[(0, SMALL_BUFFER, FREE)],
        "a block recorded on its own stream is free at once (its stream's order protects it)",
    )?;
    let y = malloc(&mut a, 4096, S0)?;
    ensure_at(&y, 0, "malloc(4 KiB) on the same stream reuses it")
}

fn empty_cache_waits_for_pending_frees(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(100));
    let s = malloc(&mut a, 4096, S0)?;
    let l1 = malloc(&mut a, mb(5), S0)?;
    let l2 = malloc(&mut a, mb(5), S0)?;
    a.record_stream(&s, S3);
    free(&mut a, s)?;
    free(&mut a, l1)?;
    a.empty_cache();
    ensure_eq(
        segments(&a),
        vec![Seg(mb(2) as u64, LARGE_BUFFER, S0, Pool::Large)],
        "segments after empty_cache: it waits for stream 3, so the small segment is wholly free and returned, and the large one still holds an allocated block",
    )?;
    let (m2, m7, m12) = (mb(2) as u64, mb(7) as u64, mb(12) as u64);
    ensure_rows(
        &a,
        mb(2),
        &[(m2, mb(5), FREE), (m7, mb(5), ALLOC), (m12, mb(10), FREE)],
        "the large segment after empty_cache",
    )?;
    free(&mut a, l2)?;
    a.empty_cache();
    ensure_eq(
        (Size(a.memory_reserved()), a.snapshot().len()),
        (Size(0), 0),
        "(memory_reserved, segments) after freeing everything and empty_cache",
    )?;
    let x = malloc(&mut a, mb(4), S0)?;
    a.record_stream(&x, S2);
    free(&mut a, x)?;
    a.empty_cache();
    ensure_eq(
        Size(a.memory_reserved()),
        Size(0),
        "memory_reserved after empty_cache with one pending block in an otherwise free segment",
    )
}

// ------------------------------------------------------ out of memory, stats

fn fragmentation_oom_explains_itself(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(40));
    let mut x = Vec::new();
    for _ in 0..4 {
        x.push(Some(malloc(&mut a, mb(8), S0)?));
    }
    let addrs: Vec<u64> = x.iter().flatten().map(|b| b.addr() / MIB as u64).collect();
    ensure_eq(
        addrs,
        vec![0, 8, 20, 28],
        "addresses in MiB of four malloc(8 MiB) in two 20 MiB segments",
    )?;
    free(&mut a, x[0].take().expect("allocated"))?;
    free(&mut a, x[2].take().expect("allocated"))?;
    let expected = AllocError::OutOfMemory {
        requested: mb(12),
        allocated: mb(16),
        reserved: mb(40),
    };
    let err = match a.malloc(mb(12), S0) {
        Ok(b) => {
            return Err(Failure::new(
                format!(
                    "{expected:?}: 24 MiB is free but no free block holds 12 MiB, and a 12 MiB segment exceeds the 40 MiB device"
                ),
                format!("a block of {} at {}", bytes(b.size()), at(b.addr())),
            ));
        }
        Err(e) => e,
    };
    ensure_eq(
        &err,
        &expected,
        "malloc(12 MiB) with 16 MiB allocated in two 20 MiB segments of a 40 MiB device",
    )?;
    let stats = a.stats();
    ensure_eq(
        (stats.num_alloc_retries, stats.num_ooms),
        (1, 1),
        "(num_alloc_retries, num_ooms): one retry after releasing the cache, then the OOM",
    )?;
    let text = err.to_string();
    for needed in ["reserved but unallocated", "fragment", "12 MiB", "24 MiB"] {
        ensure(
            text.contains(needed),
            format!(
                "the message to name the request (12 MiB), say that 24 MiB is reserved but unallocated and name fragmentation as the cause (contain `{needed}`)"
            ),
            || format!("the message `{text}`"),
        )?;
    }
    let mut full = sim(mb(40));
    let _big = malloc(&mut full, mb(30), S0)?;
    let err = full.malloc(mb(20), S0).err();
    let text = err.as_ref().map(ToString::to_string).unwrap_or_default();
    ensure(
        matches!(err, Some(AllocError::OutOfMemory { .. })) && !text.contains("fragment"),
        "malloc(20 MiB) with 30 MiB allocated of 40: OutOfMemory whose message does not blame fragmentation (nothing is reserved but unallocated, so no `fragment`)",
        || format!("{err:?}: `{text}`"),
    )?;
    free(&mut a, x[1].take().expect("allocated"))?;
    free(&mut a, x[3].take().expect("allocated"))?;
    let y = malloc(&mut a, mb(30), S0)?;
    ensure_at(
        &y,
        mb(40),
        "after freeing the other two blocks, malloc(30 MiB) returns both free segments to the driver and gets a new one",
    )?;
    ensure_eq(
        (Size(a.memory_reserved()), a.stats().num_alloc_retries),
        (Size(mb(30)), 2),
        "(memory_reserved, num_alloc_retries) after that",
    )
}

fn oom_releases_cached_segments_and_retries(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(40));
    let o = malloc(&mut a, mb(5), S1)?;
    free(&mut a, o)?;
    let big = a.malloc(mb(30), S0).map_err(|e| Failure::new("malloc(30 MiB) on stream 0 with a 20 MiB segment cached for stream 1 on a 40 MiB device: the retry returns stream 1's cached segment and succeeds", format!("{e:?}: {e}; the segment cached for stream 1 was not returned to the driver before a retry, or there was no retry")))?;
    ensure_at(&big, mb(20), "that 30 MiB block")?;
    let s = a.stats();
    ensure_eq(
        (
            Size(s.reserved_bytes),
            s.num_alloc_retries,
            s.num_ooms,
            s.num_device_free,
        ),
        (Size(mb(30)), 1, 0, 1),
        "(reserved_bytes, num_alloc_retries, num_ooms, num_device_free) after it",
    )?;
    let mut a = sim(mb(20));
    let x = malloc(&mut a, mb(20), S0)?;
    a.record_stream(&x, S1);
    free(&mut a, x)?;
    let y = a.malloc(mb(20), S0).map_err(|e| Failure::new("malloc(20 MiB) when the device's only segment waits on stream 1: the retry waits for the pending free, returns the segment and succeeds", format!("{e:?}")))?;
    ensure_at(&y, mb(20), "that block (a new segment)")?;
    ensure_eq(
        (Size(a.memory_reserved()), a.stats().num_alloc_retries),
        (Size(mb(20)), 1),
        "(memory_reserved, num_alloc_retries) after it",
    )
}

fn statistics_follow_allocations(_: &Ctx) -> Result<(), Failure> {
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
    )?;
    let x = malloc(&mut a, mb(4), S0)?;
    let y = malloc(&mut a, mb(4), S0)?;
    a.record_stream(&y, S1);
    free(&mut a, y)?;
    ensure_eq(
        (
            Size(a.stats().allocated_bytes),
            Size(a.stats().active_bytes),
        ),
        (Size(mb(4)), Size(mb(8))),
        "(allocated_bytes, active_bytes) with a 4 MiB block freed but pending on stream 1: allocated drops at free, active when the stream is done",
    )?;
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
    ensure_eq(
        a.stats(),
        expected,
        "stats after malloc(1000) twice, 4 MiB twice (one pending on stream 1), 1 MiB, all freed and empty_cache",
    )
}

fn foreign_block_is_not_allocated(_: &Ctx) -> Result<(), Failure> {
    let mut mine = sim(mb(64));
    let mut other = sim(mb(64));
    let x = malloc(&mut mine, 1000, S0)?;
    let y = malloc(&mut other, 1000, S0)?;
    let z = malloc(&mut other, mb(5), S0)?;
    let before = (mine.snapshot(), mine.stats());
    for (block, addr) in [(y, 0), (z, mb(2) as u64)] {
        let result = mine.free(block);
        ensure_eq(
            result,
            Err(AllocError::NotAllocated { addr }),
            "free of another allocator's block (its address may match one of ours)",
        )?;
        ensure_eq(
            (mine.snapshot(), mine.stats()),
            before.clone(),
            "the snapshot and stats after that refused free (unchanged)",
        )?;
    }
    free(&mut mine, x)
}

fn layout_after_a_scripted_workload(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let x = malloc(&mut a, 1000, S0)?;
    let _y = malloc(&mut a, mb(5), S0)?;
    let _z = malloc(&mut a, 300, S1)?;
    let _w = malloc(&mut a, mb(12), S1)?;
    let v = malloc(&mut a, 2000, S0)?;
    a.record_stream(&v, S2);
    free(&mut a, x)?;
    free(&mut a, v)?;
    let (m2, m7, m22, m24) = (mb(2) as u64, mb(7) as u64, mb(22) as u64, mb(24) as u64);
    let expected: Vec<(u64, usize, StreamId, Pool, Vec<Row>)> = vec![
        (
            0,
            mb(2),
            S0,
            Pool::Small,
            vec![
                (0, 1024, FREE),
                (1024, 2048, PEND),
                (3072, mb(2) - 3072, FREE),
            ],
        ),
        (
            m2,
            mb(20),
            S0,
            Pool::Large,
            vec![(m2, mb(5), ALLOC), (m7, mb(15), FREE)],
        ),
        (
            m22,
            mb(2),
            S1,
            Pool::Small,
            vec![(m22, 512, ALLOC), (m22 + 512, mb(2) - 512, FREE)],
        ),
        (m24, mb(12), S1, Pool::Large, vec![(m24, mb(12), ALLOC)]),
    ];
    let script = "malloc(1000, s0), malloc(5 MiB, s0), malloc(300, s1), malloc(12 MiB, s1), v = malloc(2000, s0), record_stream(v, s2), free the first and v";
    ensure_layout(&a, &expected, script)?;
    a.driver_mut().finish(S2);
    malloc(&mut a, 1024, S0)?;
    ensure_rows(
        &a,
        0,
        &[(0, 1024, ALLOC), (1024, mb(2) - 1024, FREE)],
        "after stream 2 finishes and malloc(1 KiB, s0): the pending block merged with both free neighbours before the search",
    )?;
    ensure_eq(
        (Size(a.memory_allocated()), Size(a.memory_reserved())),
        (Size(1024 + mb(5) + 512 + mb(12)), Size(mb(36))),
        "(memory_allocated, memory_reserved) at the end",
    )
}

/// Fails unless the whole snapshot is `expected`, segment by segment.
fn ensure_layout(
    a: &Sim,
    expected: &[(u64, usize, StreamId, Pool, Vec<Row>)],
    script: &str,
) -> Result<(), Failure> {
    let snapshot = a.snapshot();
    let show = |segments: &mut dyn Iterator<Item = (u64, usize, StreamId, Pool, Vec<Row>)>| {
        segments
            .map(|(base, size, stream, pool, rows)| {
                format!(
                    "\n  {pool:?} segment of {} at {} for stream {}: {}",
                    bytes(size),
                    at(base),
                    stream.0,
                    render(&rows)
                )
            })
            .collect::<String>()
    };
    let actual: Vec<_> = snapshot
        .iter()
        .map(|s| {
            (
                s.base,
                s.size,
                s.stream,
                s.pool,
                s.blocks
                    .iter()
                    .map(|b| (b.addr, b.size, b.state))
                    .collect::<Vec<Row>>(),
            )
        })
        .collect();
    ensure(
        actual == expected,
        format!(
            "the snapshot after {script}:{}",
            show(&mut expected.iter().cloned())
        ),
        || show(&mut actual.into_iter()),
    )
}

// ------------------------------------------------------ the random workload

/// A small xorshift generator: the same workload on every run.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const SEED: u64 = 0x9e37_79b9_7f4a_7c15;
const STEPS: usize = 3000;
const CAPACITY: usize = 96 << 20;

fn random_workload_keeps_invariants(_: &Ctx) -> Result<(), Failure> {
    let mut rng = XorShift(SEED);
    let mut a = sim(CAPACITY);
    let mut live: Vec<Block> = Vec::new();
    for step in 1..=STEPS {
        let op = random_step(&mut rng, &mut a, &mut live).map_err(|f| at_step(f, step, "", &a))?;
        check_invariants(&a, &live).map_err(|f| at_step(f, step, &op, &a))?;
    }
    Ok(())
}

/// One random operation; returns what it did.
fn random_step(rng: &mut XorShift, a: &mut Sim, live: &mut Vec<Block>) -> Result<String, Failure> {
    let stream = StreamId(rng.below(3) as u32);
    match rng.below(100) {
        0..=44 => {
            let size = match rng.below(10) {
                0..=5 => rng.below(64 * KIB as u64) as usize,
                6..=7 => rng.below(MIB as u64 + 2) as usize,
                _ => rng.below(24 * MIB as u64) as usize,
            };
            let op = format!("malloc({size}, stream {})", stream.0);
            match a.malloc(size, stream) {
                Ok(block) => live.push(block),
                Err(AllocError::OutOfMemory {
                    requested,
                    allocated,
                    reserved,
                }) => {
                    let figures = (allocated, reserved);
                    ensure(
                        figures == (a.memory_allocated(), a.memory_reserved()) && requested >= size,
                        format!(
                            "{op} failing with OutOfMemory to report the request and the allocator's current figures"
                        ),
                        || {
                            format!(
                                "requested {requested}, (allocated, reserved) {figures:?}, while memory_allocated/reserved are {:?}",
                                (a.memory_allocated(), a.memory_reserved())
                            )
                        },
                    )?;
                }
                Err(e) => {
                    return Err(Failure::new(
                        format!("{op} to succeed or run out of memory"),
                        format!("{e:?}"),
                    ));
                }
            }
            Ok(op)
        }
        45..=79 if !live.is_empty() => {
            let block = live.swap_remove(rng.below(live.len() as u64) as usize);
            let op = format!("free(block at {:#x})", block.addr());
            a.free(block).map_err(|e| {
                Failure::new(format!("{op} of a live block to succeed"), format!("{e:?}"))
            })?;
            Ok(op)
        }
        80..=89 if !live.is_empty() => {
            let block = &live[rng.below(live.len() as u64) as usize];
            a.record_stream(block, stream);
            Ok(format!(
                "record_stream(block at {:#x}, stream {})",
                block.addr(),
                stream.0
            ))
        }
        90..=97 => {
            a.driver_mut().finish(stream);
            Ok(format!("finish(stream {})", stream.0))
        }
        _ => {
            a.empty_cache();
            Ok("empty_cache()".into())
        }
    }
}

fn at_step(failure: Failure, step: usize, op: &str, a: &Sim) -> Failure {
    let layout: String = a
        .snapshot()
        .iter()
        .map(|s| {
            format!(
                "\n  {:?} segment of {} at {:#x} for stream {}: {} blocks",
                s.pool,
                bytes(s.size),
                s.base,
                s.stream.0,
                s.blocks.len()
            )
        })
        .collect();
    let expected = format!(
        "{} (random workload, seed {SEED:#x}, step {step}{})",
        failure.expected,
        if op.is_empty() {
            String::new()
        } else {
            format!(", after {op}")
        }
    );
    Failure::new(expected, failure.actual).detail(format!("segments at that step:{layout}"))
}

/// Every invariant of the allocator's state.
fn check_invariants(a: &Sim, live: &[Block]) -> Result<(), Failure> {
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
        Pool::Large => size == LARGE_BUFFER || (size >= 10 * MIB && size % (2 * MIB) == 0),
    };
    ensure(
        ok,
        "small segments of 2 MiB, large ones of 20 MiB or a multiple of 2 MiB from 10 MiB",
        || format!("a {pool:?} segment of {}", bytes(size)),
    )
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
                    "in the segment at {:#x}, a block of {} bytes at {:#x} where one should start at {next:#x}",
                    s.base, b.size, b.addr
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
    )?;
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

// ----------------------------------------------------------- on the GPU

/// A `Driver` over the `gpu` crate: raw segments (`cuMemAlloc`) and events.
struct GpuDriver {
    device: gpu::Device,
    streams: BTreeMap<StreamId, gpu::Stream>,
    segments: BTreeMap<u64, gpu::Segment>,
    problems: Vec<String>,
}

impl Driver for GpuDriver {
    type Event = gpu::Event;

    fn alloc_segment(&mut self, bytes: usize) -> Option<u64> {
        let segment = self.device.alloc_segment(bytes).ok()?;
        let addr = segment.addr();
        self.segments.insert(addr, segment);
        Some(addr)
    }

    fn free_segment(&mut self, addr: u64, bytes: usize) {
        match self.segments.remove(&addr) {
            Some(segment) if segment.bytes() == bytes => {
                if let Err(e) = self.device.free_segment(segment) {
                    self.problems
                        .push(format!("free_segment({addr:#x}) failed: {e}"));
                }
            }
            Some(segment) => {
                self.problems.push(format!(
                    "free_segment({addr:#x}, {bytes}) for a segment of {} bytes",
                    segment.bytes()
                ));
                self.segments.insert(addr, segment);
            }
            None => self
                .problems
                .push(format!("free_segment({addr:#x}) of no segment")),
        }
    }

    fn record_event(&mut self, stream: StreamId) -> gpu::Event {
        let Some(s) = self.streams.get(&stream) else {
            panic!(
                "the allocator recorded an event on stream {}, which this check never used",
                stream.0
            )
        };
        s.record_event().expect("recording an event")
    }

    fn event_done(&mut self, event: &gpu::Event) -> bool {
        event.query().expect("querying an event")
    }

    fn wait_event(&mut self, event: &gpu::Event) {
        event.synchronize().expect("waiting for an event");
    }
}

/// Elements in the block: 1 MiB of `f32`, a small-pool block.
const N: usize = 1 << 18;

fn gpu_reuse_waits_for_a_slow_reader(ctx: &Ctx) -> Result<(), Failure> {
    let device = ctx.device()?;
    let (a, b) = (device.new_stream()?, device.new_stream()?);
    let driver = GpuDriver {
        device: device.clone(),
        streams: BTreeMap::from([(S0, a.clone()), (S1, b.clone())]),
        segments: BTreeMap::new(),
        problems: Vec::new(),
    };
    let mut alloc = CachingAllocator::new(driver);
    let out = b.alloc_zeros::<f32>(1)?;
    let block = alloc
        .malloc(N * 4, S0)
        .map_err(|e| Failure::new("malloc(1 MiB) on stream A", e.to_string()))?;
    let old = block.addr();
    a.fill(device.view::<f32>(old, N)?, 1.0)?;
    b.wait_event(&a.record_event()?)?;
    b.sum_after(Duration::from_millis(20), device.view::<f32>(old, N)?, &out)?;
    alloc.record_stream(&block, S1);
    alloc
        .free(block)
        .map_err(|e| Failure::new("free of the block", e.to_string()))?;
    let again = alloc
        .malloc(N * 4, S0)
        .map_err(|e| Failure::new("a second malloc(1 MiB) on stream A", e.to_string()))?;
    a.fill(device.view::<f32>(again.addr(), N)?, 999.0)?;
    let sum = b.to_vec(&out)?[0];
    ctx.save_trace("reuse", &device);
    let races: Vec<String> = device.races().iter().map(ToString::to_string).collect();
    let problems = std::mem::take(&mut alloc.driver_mut().problems);
    let reused = again.addr() == old;
    alloc
        .free(again)
        .map_err(|e| Failure::new("free of the second block", e.to_string()))?;
    if sum != N as f32 || !races.is_empty() {
        let what = if reused {
            format!(
                "malloc handed out the block at {old:#x} again while stream B's slow reader still read it: a reuse before the reader was done, so stream A's fill of 999.0 landed under the read"
            )
        } else {
            "the reader saw other data".to_string()
        };
        return Err(Failure::new(
            format!("stream B's slow reader to sum {N} ones to {N} (a block recorded with record_stream on B and freed must not be reused before B's work is done)"),
            format!("a sum of {sum}; {what}"),
        )
        .detail(format!("races found by the race checker:\n{}", races.join("\n"))));
    }
    ensure(
        problems.is_empty(),
        "the driver to be used correctly",
        || problems.join("; "),
    )
}
