//! The values the allocator hands out and reports, as they travel from the
//! agent: stream ids, pools, the snapshot of segments and blocks, and the
//! [`Block`] handle, which stands for the learner's block in the agent.

use serde::{Deserialize, Serialize};

/// A stream, as the allocator knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct StreamId(pub u32);

/// The two pools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pool {
    /// Rounded requests up to 1 MiB, packed into 2 MiB segments.
    Small,
    /// Everything larger.
    Large,
}

/// Where a block is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BlockState {
    /// Handed out by `malloc` and not freed yet.
    Allocated,
    /// Freed, but another stream recorded with `record_stream` may still use it.
    PendingFree,
    /// Cached: free for the next `malloc` of its pool and stream.
    Free,
}

/// One block of a segment, in a snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockInfo {
    /// Its first byte.
    pub addr: u64,
    /// Its size in bytes.
    pub size: usize,
    /// Allocated, pending free, or free.
    pub state: BlockState,
}

/// One segment, in a snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentInfo {
    /// Its first byte.
    pub base: u64,
    /// Its size in bytes.
    pub size: usize,
    /// The stream whose `malloc` created it.
    pub stream: StreamId,
    /// The pool it serves.
    pub pool: Pool,
    /// Its blocks, by address.
    pub blocks: Vec<BlockInfo>,
}

/// A block the learner's allocator handed out: its address, size and
/// stream as the learner's `Block` reported them, and the handle of that
/// block in the agent. Not `Clone`, like the learner's.
#[derive(Debug)]
pub struct Block {
    pub(crate) handle: u64,
    pub(crate) addr: u64,
    pub(crate) size: usize,
    pub(crate) stream: StreamId,
}

/// A block as it travels from the agent.
#[derive(Debug, Serialize, Deserialize)]
pub struct BlockRef {
    /// The learner's block, kept in the agent.
    pub handle: u64,
    /// Its `addr()`.
    pub addr: u64,
    /// Its `size()`.
    pub size: usize,
    /// Its `stream()`.
    pub stream: StreamId,
}

impl From<BlockRef> for Block {
    fn from(r: BlockRef) -> Self {
        Self {
            handle: r.handle,
            addr: r.addr,
            size: r.size,
            stream: r.stream,
        }
    }
}

impl Block {
    /// Device address of its first byte.
    pub fn addr(&self) -> u64 {
        self.addr
    }

    /// Its size in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The stream it was allocated on.
    pub fn stream(&self) -> StreamId {
        self.stream
    }
}
