//! The first decision a caching allocator makes on every `malloc`: round the
//! request, pick its pool, and size a new segment when the pool has no free
//! block that fits.
//!
//! These are PyTorch's rules and constants (`CUDACachingAllocator.cpp`), the
//! same as exercise 101's. The judge calls each function on a table of sizes
//! that holds every boundary, and compares your answers with its own.

/// Every request is rounded up to a multiple of this, and is at least this.
pub const MIN_BLOCK: usize = 512;
/// A rounded request of at most this many bytes goes to the small pool.
pub const SMALL_SIZE: usize = 1 << 20;
/// The size of a small-pool segment.
pub const SMALL_BUFFER: usize = 2 << 20;
/// The size of a large-pool segment for requests under [`MIN_LARGE_ALLOC`].
pub const LARGE_BUFFER: usize = 20 << 20;
/// From this rounded size on, a request gets a segment of its own.
pub const MIN_LARGE_ALLOC: usize = 10 << 20;
/// Such a segment is rounded up to a multiple of this.
pub const ROUND_LARGE: usize = 2 << 20;

/// The two pools: they never share memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pool {
    /// Rounded requests up to 1 MiB, packed into 2 MiB segments.
    Small,
    /// Rounded requests over 1 MiB.
    Large,
}

/// `size` rounded up to a multiple of [`MIN_BLOCK`], and at least
/// [`MIN_BLOCK`]: `malloc(0)` is a 512-byte block.
pub fn round_size(size: usize) -> usize {
    size.max(1).div_ceil(MIN_BLOCK) * MIN_BLOCK
}

/// The pool that serves a request already rounded to `rounded` bytes.
pub fn pool_for(rounded: usize) -> Pool {
    if rounded <= SMALL_SIZE {
        Pool::Small
    } else {
        Pool::Large
    }
}

/// The size of the segment to ask the driver for when no cached block fits a
/// request already rounded to `rounded` bytes.
pub fn segment_size(rounded: usize) -> usize {
    if rounded <= SMALL_SIZE {
        SMALL_BUFFER
    } else if rounded < MIN_LARGE_ALLOC {
        LARGE_BUFFER
    } else {
        rounded.next_multiple_of(ROUND_LARGE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1 << 20;

    #[test]
    fn rounding_follows_the_statement() {
        for (size, rounded) in [(0, 512), (1, 512), (511, 512), (512, 512)] {
            assert_eq!(round_size(size), rounded, "round_size({size})");
        }
        for (size, rounded) in [(513, 1024), (1000, 1024), (1025, 1536)] {
            assert_eq!(round_size(size), rounded, "round_size({size})");
        }
        assert_eq!(round_size(MIB + 1), MIB + 512);
    }

    #[test]
    fn exactly_one_mib_is_small() {
        assert_eq!(pool_for(512), Pool::Small);
        assert_eq!(pool_for(MIB), Pool::Small);
        assert_eq!(pool_for(MIB + 512), Pool::Large);
    }

    #[test]
    fn segments_follow_the_statement() {
        let table = [
            (512, 2 * MIB),
            (MIB, 2 * MIB),
            (MIB + 512, 20 * MIB),
            (5 * MIB, 20 * MIB),
            (10 * MIB - 512, 20 * MIB),
            (10 * MIB, 10 * MIB),
            (12 * MIB + 512, 14 * MIB),
            (19 * MIB + 512, 20 * MIB),
        ];
        for (rounded, segment) in table {
            assert_eq!(segment_size(rounded), segment, "segment_size({rounded})");
        }
    }
}
