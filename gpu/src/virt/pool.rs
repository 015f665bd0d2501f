//! The virtual GPU's stream-ordered memory pool (`cuMemAllocAsync`).
//!
//! A freed block is reusable at once by its own stream (stream order makes
//! that safe for work on that stream) and by other streams once the free has
//! completed on the GPU, as CUDA's default pool does with opportunistic reuse.
//! Neither rule knows about *other* streams still using the memory: that is
//! the hazard the race checker reports and `record_stream` exists for.

use crate::trace::StreamId;

/// Allocations are rounded up to this many bytes.
const GRANULE: usize = 512;

/// A freed block waiting to be reused.
#[derive(Clone, Copy, Debug)]
struct FreeBlock {
    addr: u64,
    bytes: usize,
    stream: StreamId,
    /// When the free completes on the GPU.
    done: u64,
}

/// Blocks in use and blocks freed, by address.
pub(super) struct Pool {
    base: u64,
    next: u64,
    live: std::collections::BTreeMap<u64, usize>,
    free: Vec<FreeBlock>,
}

impl Pool {
    /// An empty pool handing out addresses from `base`.
    pub(super) fn new(base: u64) -> Self {
        Self {
            base,
            next: base,
            live: Default::default(),
            free: Vec::new(),
        }
    }

    /// The size a request of `bytes` occupies.
    pub(super) fn rounded(bytes: usize) -> usize {
        bytes.max(1).div_ceil(GRANULE).saturating_mul(GRANULE)
    }

    /// Bytes the pool holds, in use or cached.
    pub(super) fn reserved(&self) -> u64 {
        self.next - self.base
    }

    /// A block for `bytes` on `stream` at CPU time `now`: a cached block of the
    /// same size that `stream` may reuse (lowest address first), else fresh
    /// memory if `fits`. Returns the address and whether it is fresh.
    pub(super) fn alloc(
        &mut self,
        bytes: usize,
        stream: StreamId,
        now: u64,
        fits: bool,
    ) -> Option<(u64, bool)> {
        let bytes = Self::rounded(bytes);
        let reusable = self
            .free
            .iter()
            .enumerate()
            .filter(|(_, b)| b.bytes == bytes && (b.stream == stream || b.done <= now))
            .min_by_key(|(_, b)| b.addr)
            .map(|(i, _)| i);
        if let Some(i) = reusable {
            let block = self.free.swap_remove(i);
            self.live.insert(block.addr, bytes);
            return Some((block.addr, false));
        }
        if !fits {
            return None;
        }
        let addr = self.next;
        self.next += bytes as u64;
        self.live.insert(addr, bytes);
        Some((addr, true))
    }

    /// Returns the block at `addr`, freed on `stream`, complete at `done`.
    pub(super) fn free(&mut self, addr: u64, stream: StreamId, done: u64) {
        if let Some(bytes) = self.live.remove(&addr) {
            self.free.push(FreeBlock {
                addr,
                bytes,
                stream,
                done,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: StreamId = StreamId(1);
    const B: StreamId = StreamId(2);

    #[test]
    fn rounds_to_512() {
        assert_eq!(Pool::rounded(0), 512);
        assert_eq!(Pool::rounded(512), 512);
        assert_eq!(Pool::rounded(513), 1024);
    }

    #[test]
    fn same_stream_reuses_at_once_other_streams_after_the_free_completes() {
        let mut pool = Pool::new(0x1000);
        let (a, fresh) = pool.alloc(4096, A, 0, true).unwrap();
        assert!(fresh);
        pool.free(a, A, 100);
        assert_eq!(
            pool.alloc(4096, B, 50, true).unwrap(),
            (a + 4096, true),
            "B must not reuse before 100"
        );
        assert_eq!(
            pool.alloc(4096, A, 50, true).unwrap(),
            (a, false),
            "A reuses in stream order"
        );
    }

    #[test]
    fn other_stream_reuses_once_done_and_sizes_must_match() {
        let mut pool = Pool::new(0);
        let (a, _) = pool.alloc(1024, A, 0, true).unwrap();
        pool.free(a, A, 10);
        assert!(
            pool.alloc(2048, B, 20, true).unwrap().1,
            "a different size is fresh memory"
        );
        assert_eq!(pool.alloc(1024, B, 20, true).unwrap(), (a, false));
        assert_eq!(
            pool.alloc(1024, B, 20, false),
            None,
            "no fresh memory when it does not fit"
        );
    }
}
