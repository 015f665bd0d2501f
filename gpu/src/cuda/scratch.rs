//! The scratch memory of `sum_f32`: one slot per stream.
//!
//! A multi-block `sum_f32` needs device memory of its own: each block's
//! partial sum, the count of blocks done (the last one adds up the partial
//! sums) and the start time of the launch's wait (`struct SumScratch` in
//! `kernels/source.cu`). Launches on one stream run one after the other, so
//! one slot per stream is enough, and stream `n` keeps slot `n - 1` for its
//! life. A graph captured on a stream uses that stream's slot and is only
//! ever launched there (`launch_graph` checks it). A capture that forks onto
//! a second stream records sums with the second stream's slot: replaying the
//! graph while that stream runs a sum of its own would share one slot, which
//! nothing in this workbook does.
//!
//! Slots come from arenas of [`ARENA_SLOTS`] slots, each one `cuMemAlloc`.
//! The first is allocated when the device opens, so that creating a stream
//! allocates nothing (it may happen while another stream captures, when
//! `cuMemAlloc` is refused) until a device has more than [`ARENA_SLOTS`]
//! streams. A new stream zeroes its slot on its own stream, before anything
//! else it runs, and every launch leaves the slot zeroed for the next.

use super::drv;
use crate::error::Result;
use crate::kernels::SumGrid;
use cudarc::driver::{CudaStream, result};

/// Bytes of `struct SumScratch`: the start time (8), the count (4), 4 unused,
/// and one `float` per block.
pub(super) const SCRATCH_BYTES: usize = 16 + 4 * SumGrid::MAX_BLOCKS;

/// Bytes between two slots: `SCRATCH_BYTES` rounded up to 256, so that each
/// slot starts on a boundary of its own.
const SLOT_BYTES: usize = SCRATCH_BYTES.next_multiple_of(256);

/// Slots in one arena (about 1 MiB of device memory).
const ARENA_SLOTS: usize = 256;

/// The arenas of one device, freed at drop by [`Scratch::free`].
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// Device addresses of the arenas, in allocation order.
    arenas: Vec<u64>,
}

impl Scratch {
    /// Allocates the first arena. The caller has bound the context.
    pub(super) fn new() -> Result<Self> {
        let mut scratch = Self::default();
        scratch.grow()?;
        Ok(scratch)
    }

    /// The slot of the stream with index `index` (stream id less one), zeroed
    /// on `stream` (that stream) before anything queued after this call.
    /// Allocates an arena when `index` lies past the last one. The caller has
    /// bound the context.
    pub(super) fn slot_for(&mut self, index: usize, stream: &CudaStream) -> Result<u64> {
        while index >= self.arenas.len() * ARENA_SLOTS {
            self.grow()?;
        }
        let arena = self.arenas[index / ARENA_SLOTS];
        let slot = arena + ((index % ARENA_SLOTS) * SLOT_BYTES) as u64;
        // SAFETY: `slot..slot + SCRATCH_BYTES` lies inside the live arena
        // (`SLOT_BYTES >= SCRATCH_BYTES`), which only this stream uses; the
        // memset is ordered on `stream` before any launch that reads it.
        unsafe { result::memset_d8_async(slot, 0, SCRATCH_BYTES, stream.cu_stream()) }
            .map_err(drv("cuMemsetD8Async"))?;
        Ok(slot)
    }

    /// One more arena.
    fn grow(&mut self) -> Result<()> {
        // SAFETY: a plain allocation; the memory is kept as a raw address and
        // freed once, in `free`.
        let arena =
            unsafe { result::malloc_sync(ARENA_SLOTS * SLOT_BYTES) }.map_err(drv("cuMemAlloc"))?;
        self.arenas.push(arena);
        Ok(())
    }

    /// Frees every arena (`cuMemFree`, which waits for the device). The
    /// caller has bound the context; no launch may use a slot afterwards.
    pub(super) fn free(&mut self) {
        for arena in self.arenas.drain(..) {
            // SAFETY: `arena` came from `cuMemAlloc` in `grow` and leaves
            // `arenas` here, so it is freed exactly once.
            let _ = unsafe { result::free_sync(arena) };
        }
    }
}
