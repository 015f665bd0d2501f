//! The [`Block`] handle, which stands for the learner's block in the agent
//! and keeps what the block reported when it was handed out (the values
//! the allocator reports are declared in `api.rs`).

use crate::StreamId;
use serde::{Deserialize, Serialize};

/// A block the learner's allocator handed out: its address, size and
/// stream as the learner's `Block` reported them, and the handle of that
/// block in the agent. Not `Clone`, like the learner's.
#[derive(Debug, Deserialize)]
#[serde(from = "BlockRef")]
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

/// A block travels to the agent as its handle there.
impl judge_harness::api::Wire for Block {
    type Out<'a> = u64;
    fn wire(&self) -> u64 {
        self.handle
    }
}
