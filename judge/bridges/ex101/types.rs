//! The [`Block`] handle, which stands for the learner's block in the agent
//! and keeps what the block reported when it was handed out (the values
//! the allocator reports are declared in `api.rs`).

use crate::StreamId;
use serde::Deserialize;

/// A block the learner's allocator handed out: the handle of that block in
/// the agent, and its address, size and stream as the learner's `Block`
/// reported them. Not `Clone`, like the learner's. It travels from the
/// agent as `(handle, addr, size, stream)` (`serve.rs`), which postcard
/// encodes as it does these fields, in this order.
#[derive(Debug, Deserialize)]
pub struct Block {
    handle: u64,
    addr: u64,
    size: usize,
    stream: StreamId,
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
