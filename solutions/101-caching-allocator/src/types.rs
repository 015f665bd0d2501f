//! The values the allocator hands out and reports: stream ids, pools, the
//! [`Block`] handle, and the snapshot of segments and blocks.

use std::sync::atomic::{AtomicU64, Ordering};

/// A stream, as the allocator knows it: free blocks are cached per stream,
/// and `record_stream` names the other streams that used a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StreamId(pub u32);

/// The two pools. A rounded request of at most [`crate::SMALL_SIZE`] bytes
/// is served from the small pool (2 MiB segments), anything larger from the
/// large pool. Blocks never move between pools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pool {
    /// Rounded requests up to 1 MiB, packed into 2 MiB segments.
    Small,
    /// Everything larger.
    Large,
}

// ANCHOR: snapshot_types
/// Where a block is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockState {
    /// Handed out by `malloc` and not freed yet.
    Allocated,
    /// Freed, but another stream recorded with `record_stream` may still be
    /// using it: it waits for that stream's event before it can be reused.
    PendingFree,
    /// Cached: free for the next `malloc` of its pool and stream.
    Free,
}

/// One block of a segment, in a snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockInfo {
    /// Its first byte.
    pub addr: u64,
    /// Its size in bytes.
    pub size: usize,
    /// Allocated, pending free, or free.
    pub state: BlockState,
}

/// One segment (memory obtained from the driver in one call), in a
/// snapshot: its blocks tile it from `base` to `base + size`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentInfo {
    /// Its first byte.
    pub base: u64,
    /// Its size in bytes.
    pub size: usize,
    /// The stream whose `malloc` created it; all its blocks belong to it.
    pub stream: StreamId,
    /// The pool it serves.
    pub pool: Pool,
    /// Its blocks, by address.
    pub blocks: Vec<BlockInfo>,
}
// ANCHOR_END: snapshot_types

/// Memory handed out by [`crate::CachingAllocator::malloc`].
///
/// It is not `Clone`: a block is given back once, by value, with
/// [`crate::CachingAllocator::free`]. It remembers which allocator made it,
/// so another allocator refuses it.
#[derive(Debug)]
pub struct Block {
    addr: u64,
    size: usize,
    stream: StreamId,
    owner: u64,
}

impl Block {
    /// A handle for the block at `addr` of allocator `owner`.
    pub(crate) fn new(addr: u64, size: usize, stream: StreamId, owner: u64) -> Self {
        Self {
            addr,
            size,
            stream,
            owner,
        }
    }

    /// Device address of its first byte.
    pub fn addr(&self) -> u64 {
        self.addr
    }

    /// Its size in bytes: the request rounded up, or the whole cached block
    /// when the remainder was too small to split off.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The stream it was allocated on.
    pub fn stream(&self) -> StreamId {
        self.stream
    }

    /// The id of the allocator that handed it out.
    pub(crate) fn owner(&self) -> u64 {
        self.owner
    }
}

/// A fresh allocator id: blocks carry it, so that no allocator accepts
/// another's blocks.
pub(crate) fn next_allocator_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
