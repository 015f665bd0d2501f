//! The helpers the checks share: sizes and streams, an allocator over the
//! scripted `SimDriver`, and assertions that print bytes and layouts for people.

use caching_allocator::{Block, BlockState, CachingAllocator, Pool, SimDriver, StreamId};
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

pub(super) type Sim = CachingAllocator<SimDriver>;
/// A block as `(address, size, state)`.
pub(super) type Row = (u64, usize, BlockState);

pub(super) fn sim(capacity: usize) -> Sim {
    CachingAllocator::new(SimDriver::new(capacity))
}

/// `n` bytes for people: `3000 B`, `3 KiB`, `20 MiB`, `1 MiB + 512 B`.
pub(super) fn bytes(n: usize) -> String {
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

pub(super) fn render(rows: &[Row]) -> String {
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
    })
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
    Err(Failure::new(
        format!("{what}: {}", render(expected)),
        render(&actual),
    ))
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
