//! The cached free blocks of both pools, ordered for best fit.
//!
//! Each pool is one ordered set keyed by `(stream, size, address)`, as
//! PyTorch's `BlockComparatorSize` orders its `std::set`. A stream's blocks
//! are then one contiguous run, smallest first and lowest address first on
//! ties, so the best fit for a request is the first key at or after
//! `(stream, size, 0)`, if it still belongs to the same stream.

use crate::{Pool, StreamId};
use std::collections::BTreeSet;

/// A free list key: stream first, then size, then address.
type Key = (StreamId, usize, u64);

/// The free blocks of the small and the large pool.
#[derive(Debug, Default)]
pub(crate) struct FreeBlocks {
    small: BTreeSet<Key>,
    large: BTreeSet<Key>,
}

impl FreeBlocks {
    fn pool(&mut self, pool: Pool) -> &mut BTreeSet<Key> {
        match pool {
            Pool::Small => &mut self.small,
            Pool::Large => &mut self.large,
        }
    }

    /// Caches the free block of `size` bytes at `addr`.
    pub(crate) fn insert(&mut self, pool: Pool, stream: StreamId, size: usize, addr: u64) {
        let fresh = self.pool(pool).insert((stream, size, addr));
        debug_assert!(fresh, "the block at {addr:#x} was cached twice");
    }

    /// Takes the block at `addr` out of the cache (to merge or release it).
    pub(crate) fn remove(&mut self, pool: Pool, stream: StreamId, size: usize, addr: u64) {
        let cached = self.pool(pool).remove(&(stream, size, addr));
        debug_assert!(cached, "the block at {addr:#x} was not cached");
    }

    // ANCHOR: best_fit
    /// Takes out and returns the address of the best fit for `size` bytes on
    /// `stream`: the smallest cached block of at least `size` bytes, the
    /// lowest address among equals; `None` when no block of that stream fits.
    pub(crate) fn take_best_fit(
        &mut self,
        pool: Pool,
        stream: StreamId,
        size: usize,
    ) -> Option<u64> {
        let set = self.pool(pool);
        let key = *set.range((stream, size, 0)..).next()?;
        if key.0 != stream {
            return None;
        }
        set.remove(&key);
        Some(key.2)
    }
    // ANCHOR_END: best_fit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_fit_is_smallest_then_lowest_and_stays_in_its_stream() {
        let (s0, s1) = (StreamId(0), StreamId(1));
        let mut free = FreeBlocks::default();
        free.insert(Pool::Small, s0, 8192, 0);
        free.insert(Pool::Small, s0, 4096, 20_000);
        free.insert(Pool::Small, s0, 4096, 10_000);
        free.insert(Pool::Small, s1, 4096, 30_000);
        assert_eq!(free.take_best_fit(Pool::Small, s0, 3000), Some(10_000));
        assert_eq!(free.take_best_fit(Pool::Small, s0, 3000), Some(20_000));
        assert_eq!(free.take_best_fit(Pool::Small, s0, 3000), Some(0));
        assert_eq!(free.take_best_fit(Pool::Small, s0, 3000), None);
        assert_eq!(free.take_best_fit(Pool::Large, s1, 512), None);
        assert_eq!(free.take_best_fit(Pool::Small, s1, 512), Some(30_000));
    }
}
