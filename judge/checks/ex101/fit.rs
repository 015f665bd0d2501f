//! Best fit, split and merge: which free block a request takes, when the
//! rest is split off, and how a freed block merges with its neighbours.

use super::support::{
    ALLOC, Because, FREE, KIB, MIB, PEND, S0, S1, Sim, Size, at, bytes, ensure_at, ensure_block,
    ensure_rows, free, layout_diagnosis, malloc, mb, render, rows, sim,
};
use caching_allocator::{Block, SMALL_BUFFER};
use judge_harness::{Ctx, Failure, ensure_eq};

pub(super) fn best_fit_takes_the_smallest_then_lowest_address(_: &Ctx) -> Result<(), Failure> {
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
        )
        .because(|| {
            format!(
                "it took the free block at {} instead: best fit takes the smallest free block that fits, and the lowest address among blocks of that size",
                at(block.addr())
            )
        })?;
    }
    Ok(())
}

pub(super) fn splits_small_blocks_when_512_bytes_remain(_: &Ctx) -> Result<(), Failure> {
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
        ensure_block(&q, 0, request, what).because(|| small_split(q.size(), request))?;
        ensure_rows(&a, 0, &expected, what)?;
    }
    Ok(())
}

pub(super) fn splits_large_blocks_only_above_1_mib(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let whole = malloc(&mut a, mb(19), S0)?;
    ensure_block(
        &whole,
        0,
        mb(20),
        "malloc(19 MiB) in a new 20 MiB segment: only 1 MiB would remain, not more than 1 MiB, so the whole block is handed out",
    )
    .because(|| large_split(whole.size(), mb(20)))?;
    let counted = a.memory_allocated();
    ensure_eq(
        Size(counted),
        Size(mb(20)),
        "memory_allocated counts the whole 20 MiB block",
    )
    .because(|| {
        if counted == mb(19) {
            "allocated counted the 19 MiB request, not the 20 MiB block handed out whole: a block is counted at its own size (the size free subtracts), so a block not split counts its remainder too".into()
        } else {
            "allocated counts the blocks handed out, each at its size".into()
        }
    })?;
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
    )
    .because(|| large_split(b.size(), mb(15)))?;
    ensure_eq(
        Size(a.memory_allocated()),
        Size(mb(20)),
        "memory_allocated after malloc(5 MiB) and malloc(14.5 MiB)",
    )
}

/// Why a small block of `got` bytes is wrong for a request of `request`
/// bytes from a 1.5 KiB free block.
fn small_split(got: usize, request: usize) -> String {
    let rule = "the small pool splits off the rest when at least 512 B remain";
    if got > request {
        format!(
            "the block was handed out whole although {} would remain: {rule}",
            bytes(got - request)
        )
    } else {
        format!(
            "the block is {}: {rule}, and an exact fit leaves nothing to split",
            bytes(got)
        )
    }
}

/// Why a large block of `got` bytes is wrong where the whole free block of
/// `whole` bytes should have been handed out.
fn large_split(got: usize, whole: usize) -> String {
    let rest = whole.saturating_sub(got);
    format!(
        "the block was split, leaving {} free: the large pool splits off the rest only when more than 1 MiB remains, and hands out the whole block otherwise",
        bytes(rest)
    )
}

// ---------------------------------------------------------------- merging

pub(super) fn merges_with_both_neighbours(_: &Ctx) -> Result<(), Failure> {
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
    )?;
    a_pending_neighbour_merges_with_nothing()?;
    never_across_segments()
}

/// Two small segments side by side (the driver hands out adjacent
/// addresses): the last block of the first freed next to the free first
/// block of the second stays in its own segment.
fn never_across_segments() -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let _first = malloc(&mut a, MIB, S0)?;
    let last = malloc(&mut a, MIB, S0)?;
    let next = malloc(&mut a, MIB, S0)?;
    free(&mut a, next)?;
    free(&mut a, last)?;
    ensure_rows(
        &a,
        0,
        &[(0, MIB, ALLOC), (MIB as u64, MIB, FREE)],
        "two small segments at 0 and 2 MiB; the second's block freed (its segment wholly free), then the first's last block at 1 MiB: it stays a block of its own segment",
    )?;
    ensure_rows(
        &a,
        mb(2),
        &[(mb(2) as u64, mb(2), FREE)],
        "and the segment at 2 MiB keeps its one free block",
    )
}

/// A block pending free for another stream, then its neighbour freed with
/// nothing recorded: the neighbour merges with the free block after it,
/// never with the pending one.
fn a_pending_neighbour_merges_with_nothing() -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let x = malloc(&mut a, MIB, S0)?;
    let y = malloc(&mut a, 4 * KIB, S0)?;
    a.record_stream(&x, S1);
    free(&mut a, x)?;
    free(&mut a, y)?;
    let got = rows(&a, 0);
    let expected = [(0, MIB, PEND), (MIB as u64, MIB, FREE)];
    if got == expected {
        return Ok(());
    }
    let merged = got
        .iter()
        .find(|r| r.0 == 0)
        .is_some_and(|r| r.2 == FREE || r.1 != MIB);
    let why = if merged {
        "the free of the block at 1 MiB merged it with the pending block at 0: a block waiting for another stream's event merges with nothing until its events complete; only a neighbour that is free is absorbed".to_string()
    } else {
        layout_diagnosis(&expected, &got)
    };
    Err(Failure::new(
        format!(
            "a 1 MiB block recorded on stream 1 and freed (pending), then the 4 KiB block after it freed: it merges with the free rest of the segment, not with the pending block: {}",
            render(&expected)
        ),
        render(&got),
    )
    .detail(why))
}
