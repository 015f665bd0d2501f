//! The judge's own rules and constants (PyTorch's, as in the chapter and
//! exercise 101), and the table of sizes every check asks about.

use rounding_and_pools::Pool;

/// One KiB and one MiB.
pub(crate) const KIB: usize = 1 << 10;
pub(crate) const MIB: usize = 1 << 20;
/// Every request is rounded up to a multiple of this, and is at least this.
pub(crate) const MIN_BLOCK: usize = 512;
/// A rounded request of at most this many bytes goes to the small pool.
pub(crate) const SMALL_SIZE: usize = MIB;
/// The size of a small-pool segment.
pub(crate) const SMALL_BUFFER: usize = 2 * MIB;
/// The size of a large-pool segment for requests under [`MIN_LARGE_ALLOC`].
pub(crate) const LARGE_BUFFER: usize = 20 * MIB;
/// From this rounded size on, a request gets a segment of its own.
pub(crate) const MIN_LARGE_ALLOC: usize = 10 * MIB;
/// Such a segment is rounded up to a multiple of this.
pub(crate) const ROUND_LARGE: usize = 2 * MIB;

/// The rounded request.
pub(crate) fn round_size(size: usize) -> usize {
    size.max(1).div_ceil(MIN_BLOCK) * MIN_BLOCK
}

/// The pool of a rounded request.
pub(crate) fn pool_for(rounded: usize) -> Pool {
    if rounded <= SMALL_SIZE {
        Pool::Small
    } else {
        Pool::Large
    }
}

/// The size of a new segment for a rounded request.
pub(crate) fn segment_size(rounded: usize) -> usize {
    if rounded <= SMALL_SIZE {
        SMALL_BUFFER
    } else if rounded < MIN_LARGE_ALLOC {
        LARGE_BUFFER
    } else {
        rounded.next_multiple_of(ROUND_LARGE)
    }
}

/// The requests `round_size` is asked about: every boundary of the
/// rounding (0, a block and its neighbours, powers of two and their
/// neighbours) and of the pools and segments, in increasing order.
pub(crate) fn requests() -> Vec<usize> {
    let mut sizes = vec![0, 1, 2, 100, 255, 256, 257, 511, 512, 513, 1000, 1023];
    sizes.extend([1024, 1025, 1536, 1537, 3000, 4095, 4096, 4097, 100 * KIB]);
    for edge in [MIB, 2 * MIB, 10 * MIB, 12 * MIB, 20 * MIB, 64 * MIB] {
        sizes.extend([edge - 1, edge, edge + 1]);
    }
    sizes.extend([5 * MIB + 12_345, 19 * MIB + 1, 1 << 30]);
    sizes.sort_unstable();
    sizes
}

/// The rounded requests `pool_for` and `segment_size` are asked about:
/// multiples of 512 on both sides of 1 MiB, of 10 MiB and of multiples of
/// 2 MiB, in increasing order.
pub(crate) fn rounded_requests() -> Vec<usize> {
    let mut sizes = vec![512, 1024, 4096, 64 * KIB, 512 * KIB];
    for edge in [MIB, 2 * MIB, 10 * MIB, 12 * MIB, 20 * MIB, 64 * MIB] {
        sizes.extend([edge - 512, edge, edge + 512]);
    }
    sizes.extend([5 * MIB, 9 * MIB, 11 * MIB, 19 * MIB + 512, (1 << 30) + 512]);
    sizes.sort_unstable();
    sizes
}

/// A byte count for people: `512`, `1536 (1 KiB + 512 B)`,
/// `1049088 (1 MiB + 512 B)`, `10485248 (10 MiB − 512 B)`.
pub(crate) fn bytes(n: usize) -> String {
    if n < KIB {
        return n.to_string();
    }
    let short = MIB - n % MIB;
    if n > MIB && short < KIB {
        return format!("{n} ({} MiB − {short} B)", n.div_ceil(MIB));
    }
    let (mib, rest) = (n / MIB, n % MIB);
    let (kib, b) = (rest / KIB, rest % KIB);
    let mut parts = Vec::new();
    if mib > 0 {
        parts.push(format!("{mib} MiB"));
    }
    if kib > 0 {
        parts.push(format!("{kib} KiB"));
    }
    if b > 0 || parts.is_empty() {
        parts.push(format!("{b} B"));
    }
    format!("{n} ({})", parts.join(" + "))
}
