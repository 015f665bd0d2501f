//! Rounding, pools and segments: how a request is rounded, which pool it
//! goes to, and how big a new segment is.

use super::support::{
    Because, MIB, S0, Seg, Size, bytes, ensure, ensure_at, ensure_block, free, malloc, mb,
    segments, sim,
};
use caching_allocator::{LARGE_BUFFER, Pool, SMALL_BUFFER};
use judge_harness::{Ctx, Failure, ensure_eq};

pub(super) fn rounds_requests_to_512(_: &Ctx) -> Result<(), Failure> {
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
        )
        .because(|| {
            if request == 0 && one_byte_rounds_right() {
                format!(
                    "malloc(0) got {} where malloc(1) gets 512 B: the rounding lacks its floor, a request of 0 bytes is a 512-byte block too (a rounded size of 0 would split off a remainder at the block's own address): round `size.max(1)` up, or clamp to 512",
                    bytes(block.size())
                )
            } else {
                rounding(request, block.size(), SMALL_BUFFER - next)
            }
        })?;
        next += rounded;
    }
    Ok(())
}

/// Whether `malloc(1)` on a fresh allocator gets 512 bytes at 0.
fn one_byte_rounds_right() -> bool {
    let mut a = sim(mb(64));
    a.malloc(1, S0)
        .is_ok_and(|b| (b.addr(), b.size()) == (0, 512))
}

/// Why `got` bytes are wrong for a request of `request` bytes, taken from
/// a free block of `free` bytes (the rest of the small segment).
fn rounding(request: usize, got: usize, free: usize) -> String {
    let rule = "a request rounds up to the next multiple of 512 B, and to 512 B at least";
    if got == free && free > request.max(1).next_multiple_of(512) {
        return format!(
            "it got the whole free block of {} (the rest of the 2 MiB small segment): the rounding may be right, but the free block was not split; a malloc takes the rounded size from the front of a larger free block and leaves the rest free (see allocator.md#split-and-merge)",
            bytes(got)
        );
    }
    if request > 0 && request.is_multiple_of(512) && got > request {
        format!(
            "{request} B is already a multiple of 512 and keeps its size, yet it got {}: {rule}",
            bytes(got)
        )
    } else {
        format!("it got {}: {rule}", bytes(got))
    }
}

pub(super) fn picks_the_pool_by_rounded_size(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let one = malloc(&mut a, MIB, S0)?;
    let above = malloc(&mut a, MIB + 1, S0)?;
    let pool_of_one = a
        .snapshot()
        .iter()
        .find(|s| s.base <= one.addr() && one.addr() < s.base + s.size as u64)
        .map(|s| s.pool);
    ensure_eq(
        segments(&a),
        vec![
            Seg(0, SMALL_BUFFER, S0, Pool::Small),
            Seg(mb(2) as u64, LARGE_BUFFER, S0, Pool::Large),
        ],
        "the segments after malloc(1 MiB) and malloc(1 MiB + 1 B): 1 MiB is small, anything above is large",
    )
    .because(|| {
        let large = segments(&a)
            .into_iter()
            .find(|s| s.3 == Pool::Large && s.1 != LARGE_BUFFER);
        match (pool_of_one, large) {
            (Some(Pool::Large), _) => "the 1 MiB request went to the large pool: the small pool takes every request up to 1 MiB, that size included, and the large pool only larger ones".into(),
            (_, Some(s)) => super::state::segment_size_rule(s.1, s.3),
            _ => "the small pool takes every request up to 1 MiB, the large pool larger ones, each in segments of its own".into(),
        }
    })?;
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
    )
    .because(|| {
        if large.addr() < mb(2) as u64 {
            "a large request took a block of the small pool: the pools never share blocks, and a request of more than 1 MiB searches only the large pool's".into()
        } else {
            "the large pool's free 20 MiB segment at 2 MiB holds it: best fit in the large pool".into()
        }
    })?;
    let small = malloc(&mut a, 4096, S0)?;
    ensure_at(&small, 0, "malloc(4 KiB) then comes from the small pool")
}

/// The segment-size rule that applies to a request of `request` bytes.
fn segment_rule(request: usize) -> String {
    let rounded = request.max(1).next_multiple_of(512);
    if rounded <= MIB {
        format!(
            "{} is a small request (up to 1 MiB): a new small segment is always 2 MiB",
            bytes(request)
        )
    } else if rounded < mb(10) {
        format!(
            "{} is under 10 MiB: a new large segment for it is 20 MiB, to be shared by later requests",
            bytes(request)
        )
    } else {
        format!(
            "{} is 10 MiB or more: it gets a segment of its own, its size rounded up to a multiple of 2 MiB",
            bytes(request)
        )
    }
}

pub(super) fn sizes_new_segments(_: &Ctx) -> Result<(), Failure> {
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
        )
        .because(|| segment_rule(request))?;
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
