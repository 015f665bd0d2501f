//! Exercise 114's API as the checks see it in the judge's checker: a
//! [`StreamAllocator`] that stands for the learner's, which lives in the
//! agent ([`judge_harness::bridge`]) with every block it hands out, over
//! proxies of the judge's streams. Every segment, event and query the
//! learner's allocator asks for is made on the judge's device, whose trace
//! the checks read.
//!
//! `serve.rs` is the agent's side: compiled into the agent with the
//! learner's crate as `learner` and this one as `bridge`.

#[cfg(test)]
extern crate self as bridge;

#[cfg(test)]
#[path = "serve.rs"]
mod serve;
#[cfg(test)]
mod tests;

use gpu::remote::{StreamRef, host};
use gpu::{Result, Stream};
use judge_harness::bridge::invoke;
use serde::{Deserialize, Serialize};

/// A call of the learner's crate.
#[derive(Debug, Serialize, Deserialize)]
pub enum Call {
    /// `StreamAllocator::new(owner)`: answered with `u64`, its handle.
    New {
        /// The owner stream.
        owner: StreamRef,
    },
    /// `malloc(bytes)`: answered with `Option<Result<BlockRef>>` (`None`:
    /// no such allocator, an earlier call of it panicked).
    Malloc {
        /// The allocator.
        allocator: u64,
        /// The request.
        bytes: usize,
    },
    /// `record_stream(&mut block, stream)`: answered with `Option<()>`.
    RecordStream {
        /// The allocator.
        allocator: u64,
        /// The block's handle.
        block: u64,
        /// The stream that uses it.
        stream: StreamRef,
    },
    /// `free(block)`: answered with `Option<Result<()>>`.
    Free {
        /// The allocator.
        allocator: u64,
        /// The block's handle.
        block: u64,
    },
    /// The drop of a block never freed: answered with `()`.
    DropBlock {
        /// The block's handle.
        block: u64,
    },
    /// The drop of an allocator: answered with `()`.
    Drop {
        /// The allocator.
        allocator: u64,
    },
}

/// A block the learner's allocator handed out, as it travels: its handle
/// in the agent and what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockRef {
    /// The block's handle in the agent.
    pub handle: u64,
    /// Its device address.
    pub addr: u64,
    /// Its size in bytes.
    pub bytes: usize,
}

/// A block of the learner's allocator, which lives in the agent.
#[derive(Debug)]
pub struct Block {
    block: BlockRef,
    /// False once the block went back to the allocator (`free`).
    held: bool,
}

impl Block {
    /// Device address of the block's first byte.
    pub fn addr(&self) -> u64 {
        self.block.addr
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.block.bytes
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        if self.held && !std::thread::panicking() {
            let () = invoke(&Call::DropBlock {
                block: self.block.handle,
            });
        }
    }
}

/// An answer about an allocator, or the end of the check when it is gone.
fn present<T>(answer: Option<T>) -> T {
    answer.unwrap_or_else(|| {
        panic!(
            "the learner's allocator is gone: an earlier call of it panicked in the learner's code"
        )
    })
}

/// The learner's allocator, in the agent, on the judge's streams.
#[derive(Debug)]
pub struct StreamAllocator {
    handle: u64,
}

impl StreamAllocator {
    /// The learner's `StreamAllocator::new(owner)`.
    pub fn new(owner: &Stream) -> Self {
        let handle = invoke(&Call::New {
            owner: host::export_stream(owner),
        });
        Self { handle }
    }

    /// The learner's `malloc`.
    pub fn malloc(&mut self, bytes: usize) -> Result<Block> {
        let call = Call::Malloc {
            allocator: self.handle,
            bytes,
        };
        let answer: Result<BlockRef> = present(invoke(&call));
        answer.map(|block| Block { block, held: true })
    }

    /// The learner's `record_stream`.
    pub fn record_stream(&mut self, block: &mut Block, stream: &Stream) {
        let call = Call::RecordStream {
            allocator: self.handle,
            block: block.block.handle,
            stream: host::export_stream(stream),
        };
        present(invoke(&call))
    }

    /// The learner's `free`.
    pub fn free(&mut self, mut block: Block) -> Result<()> {
        block.held = false;
        let call = Call::Free {
            allocator: self.handle,
            block: block.block.handle,
        };
        present(invoke(&call))
    }
}

impl Drop for StreamAllocator {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let () = invoke(&Call::Drop {
                allocator: self.handle,
            });
        }
    }
}
