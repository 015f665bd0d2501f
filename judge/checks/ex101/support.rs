//! The helpers the checks share: sizes and streams, an allocator over the
//! scripted `SimDriver` (logged: [`Logged`]), and assertions that print bytes
//! and layouts for people.

use super::logged::Logged;
use caching_allocator::{Block, BlockState, CachingAllocator, Pool, StreamId};
use judge_harness::Failure;

pub(super) const KIB: usize = 1 << 10;
pub(super) const MIB: usize = 1 << 20;
pub(super) const S0: StreamId = StreamId(0);
pub(super) const S1: StreamId = StreamId(1);
pub(super) const S2: StreamId = StreamId(2);
pub(super) const S3: StreamId = StreamId(3);
pub(super) const ALLOC: BlockState = BlockState::Allocated;
pub(super) const PEND: BlockState = BlockState::PendingFree;
pub(super) const FREE: BlockState = BlockState::Free;

pub(super) type Sim = CachingAllocator<Logged>;
/// A block as `(address, size, state)`.
pub(super) type Row = (u64, usize, BlockState);

pub(super) fn sim(capacity: usize) -> Sim {
    CachingAllocator::new(Logged::new(capacity))
}

/// `n` bytes for people: `3000 B`, `3 KiB`, `20 MiB`, `1 MiB + 512 B`.
pub(super) fn bytes(n: usize) -> String {
    // No device holds a petabyte: a size this large is one that went below
    // zero in a `usize` and wrapped around, and reads so.
    if n > 1 << 50 {
        return format!(
            "-{} (a size that went below zero and wrapped around to {n} B)",
            bytes(n.wrapping_neg())
        );
    }
    if n < 64 * KIB && !n.is_multiple_of(KIB) {
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

pub(super) fn at(addr: u64) -> String {
    if addr == 0 {
        "0".into()
    } else {
        bytes(addr as usize)
    }
}

/// A byte count that prints for people in a failure.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Size(pub(super) usize);

impl std::fmt::Debug for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&bytes(self.0))
    }
}

/// A segment as `(base, size, stream, pool)`, printed for people.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Seg(
    pub(super) u64,
    pub(super) usize,
    pub(super) StreamId,
    pub(super) Pool,
);

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

/// A block state for people.
pub(super) fn state(state: BlockState) -> &'static str {
    match state {
        BlockState::Allocated => "allocated",
        BlockState::PendingFree => "pending free",
        BlockState::Free => "free",
    }
}

pub(super) fn render(rows: &[Row]) -> String {
    let row = |&(addr, size, s): &Row| format!("{} {} at {}", bytes(size), state(s), at(addr));
    format!("[{}]", rows.iter().map(row).collect::<Vec<_>>().join(", "))
}

pub(super) fn mb(n: usize) -> usize {
    n * MIB
}

pub(super) fn malloc(a: &mut Sim, size: usize, stream: StreamId) -> Result<Block, Failure> {
    a.malloc(size, stream).map_err(|e| {
        Failure::new(
            format!("malloc({}, stream {}) to succeed", bytes(size), stream.0),
            format!("{e:?}: {e}"),
        )
    })
}

pub(super) fn free(a: &mut Sim, block: Block) -> Result<(), Failure> {
    let addr = block.addr();
    a.free(block).map_err(|e| {
        Failure::new(
            format!("free of the block at {} to succeed", at(addr)),
            format!("{e:?}"),
        )
    })?;
    merged_across_segments(a, addr)
}

/// Fails when the free of the block at `addr` left a block running past
/// the end of its segment: a merge with the first block of the segment
/// after it, which every later layout would blame on something else.
fn merged_across_segments(a: &Sim, addr: u64) -> Result<(), Failure> {
    for s in a.snapshot() {
        let end = s.base + s.size as u64;
        if let Some(b) = s.blocks.iter().find(|b| b.addr + b.size as u64 > end) {
            return Err(Failure::new(
                "a freed block to merge only with free neighbours inside its own segment",
                format!(
                    "after `free` of the block at {}, the segment at {} ({}) holds a block of {} at {} that runs {} past the segment's end, into the segment after it",
                    at(addr),
                    at(s.base),
                    bytes(s.size),
                    bytes(b.size),
                    at(b.addr),
                    bytes((b.addr + b.size as u64 - end) as usize)
                ),
            )
            .detail("a freed block was merged with the first block of the next segment, whose address follows: segments are separate allocations of the driver, adjacent or not, and each goes back whole (`free_segment`), so a block never crosses from one into another. Merge a block only with the free blocks before and after it in its own segment; see allocator.md#split-and-merge"));
        }
    }
    Ok(())
}

/// Fails unless `block` is at `addr`.
pub(super) fn ensure_at(block: &Block, addr: usize, what: &str) -> Result<(), Failure> {
    if block.addr() == addr as u64 {
        return Ok(());
    }
    Err(Failure::new(
        format!("{what}: a block at {}", at(addr as u64)),
        format!("a block at {} ({})", at(block.addr()), bytes(block.size())),
    ))
}

/// Fails unless `block` is `size` bytes at `addr`.
pub(super) fn ensure_block(
    block: &Block,
    addr: usize,
    size: usize,
    what: &str,
) -> Result<(), Failure> {
    if (block.addr(), block.size()) == (addr as u64, size) {
        return Ok(());
    }
    Err(Failure::new(
        format!("{what}: {} at {}", bytes(size), at(addr as u64)),
        format!("{} at {}", bytes(block.size()), at(block.addr())),
    ))
}

/// The blocks of the segment at `base` (none when there is no such segment).
pub(super) fn rows(a: &Sim, base: usize) -> Vec<Row> {
    a.snapshot()
        .into_iter()
        .find(|s| s.base == base as u64)
        .map(|s| s.blocks.iter().map(|b| (b.addr, b.size, b.state)).collect())
        .unwrap_or_default()
}

/// Fails unless the segment at `base` holds exactly `expected`.
pub(super) fn ensure_rows(
    a: &Sim,
    base: usize,
    expected: &[Row],
    what: &str,
) -> Result<(), Failure> {
    let actual = rows(a, base);
    if actual == expected {
        return Ok(());
    }
    Err(
        Failure::new(format!("{what}: {}", render(expected)), render(&actual))
            .detail(layout_diagnosis(expected, &actual)),
    )
}

/// Which layout rule a segment's blocks break, from how they differ from
/// the expected ones: unmerged neighbours, a split that handed out the back,
/// a block split or not split against the pool's rule, a wrong state.
pub(super) fn layout_diagnosis(expected: &[Row], actual: &[Row]) -> String {
    const SPLIT: &str = "the small pool splits off the rest when at least 512 B remain, the large pool only when more than 1 MiB remains";
    if let Some(w) = actual.windows(2).find(|w| w[0].2 == FREE && w[1].2 == FREE) {
        return format!(
            "the free blocks at {} and {} lie side by side, not merged: a freed block merges with the free block before it and with the one after it",
            at(w[0].0),
            at(w[1].0)
        );
    }
    let pending_at = |rows: &[Row], addr: u64| rows.iter().any(|r| r.0 == addr && r.2 == PEND);
    if let Some(a) = actual
        .iter()
        .find(|a| a.2 == PEND && !pending_at(expected, a.0))
    {
        return format!(
            "the block at {} is pending free where it should be free: a freed block stays pending only while a stream other than its own may still use it (recorded with `record_stream`, its event not yet complete), and is free otherwise",
            at(a.0)
        );
    }
    if let Some(e) = expected
        .iter()
        .find(|e| e.2 == PEND && !pending_at(actual, e.0))
    {
        return format!(
            "the block at {} should still be pending free: a stream recorded on it with `record_stream` has not finished, and until its event completes the block is neither reused nor merged",
            at(e.0)
        );
    }
    let sorted_sizes = |rows: &[Row]| {
        let mut sizes: Vec<usize> = rows.iter().map(|r| r.1).collect();
        sizes.sort_unstable();
        sizes
    };
    let same_places = || {
        actual
            .iter()
            .zip(expected)
            .all(|(a, e)| (a.0, a.1) == (e.0, e.1))
    };
    match actual.len().cmp(&expected.len()) {
        std::cmp::Ordering::Less => format!(
            "a block was handed out whole where the rest should have been split off: {SPLIT}"
        ),
        std::cmp::Ordering::Greater => format!(
            "the rest of a block was split off where the block should have been handed out whole: {SPLIT}"
        ),
        _ if sorted_sizes(actual) != sorted_sizes(expected) => format!(
            "the blocks have other sizes: requests round up to a multiple of 512 B, and {SPLIT}"
        ),
        _ if same_places() => {
            let (a, e) = actual
                .iter()
                .zip(expected)
                .find(|(a, e)| a.2 != e.2)
                .expect("the rows differ");
            format!(
                "the block at {} is {} where it should be {}: a freed block stays pending only while a stream other than its own may still use it (recorded with `record_stream`, its event not yet complete), and is free otherwise",
                at(a.0),
                state(a.2),
                state(e.2)
            )
        }
        _ => "the same blocks lie in other places: a split hands out the front of the free block and keeps the rest, free, after it".into(),
    }
}

/// Gives a failure its diagnosis: why what happened is wrong, naming the
/// chapter's rule that broke. A diagnosis already there stays, first.
pub(super) trait Because<T> {
    /// The failure, if it is one, with `why` as (the end of) its diagnosis.
    fn because(self, why: impl FnOnce() -> String) -> Result<T, Failure>;
}

impl<T> Because<T> for Result<T, Failure> {
    fn because(self, why: impl FnOnce() -> String) -> Result<T, Failure> {
        self.map_err(|mut failure| {
            let why = why();
            failure.detail = Some(match failure.detail.take() {
                Some(first) => format!("{first}\n{why}"),
                None => why,
            });
            failure
        })
    }
}

/// The segments, by address.
pub(super) fn segments(a: &Sim) -> Vec<Seg> {
    let snapshot = a.snapshot();
    snapshot
        .iter()
        .map(|s| Seg(s.base, s.size, s.stream, s.pool))
        .collect()
}

pub(super) fn ensure(
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

#[cfg(test)]
mod tests {
    use super::{MIB, bytes};

    #[test]
    fn a_size_that_went_below_zero_reads_as_negative() {
        assert_eq!(bytes(3 * MIB + 512), "3 MiB + 512 B");
        assert_eq!(
            bytes((5 * MIB).wrapping_neg()),
            "-5 MiB (a size that went below zero and wrapped around to 18446744073704308736 B)"
        );
    }
}
