//! Exercise 101's API as the checks see it in the judge's checker: the
//! constants, types and [`Driver`] trait of `exercises/101-caching-allocator`,
//! the judge's own [`SimDriver`], and a [`CachingAllocator`] that stands for
//! the learner's, which lives in the agent ([`judge_harness::bridge`]). The
//! driver stays here: each of its calls by the learner's allocator comes
//! back as a callback and runs on the judge's driver (the scripted one, or
//! a check's own over the judge's device).
//!
//! `serve.rs` is the agent's side: compiled into the agent with the
//! learner's crate as `learner` and this one as `bridge`.

#[cfg(test)]
extern crate self as bridge;

mod error;
#[cfg(test)]
#[path = "serve.rs"]
mod serve;
mod sim;
#[cfg(test)]
mod tests;
mod types;

pub use error::Told;
pub use sim::{SimDriver, SimEvent};
pub use types::{Block, BlockRef};

use judge_harness::bridge::{decode, encode, invoke_with};
use judge_harness::checker_api as api;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

include!("api.rs");

/// Every request is rounded up to a multiple of this, and is at least this.
pub const MIN_BLOCK: usize = 512;
/// A rounded request of at most this many bytes goes to the small pool.
pub const SMALL_SIZE: usize = 1 << 20;
/// The size of a small-pool segment.
pub const SMALL_BUFFER: usize = 2 << 20;
/// The size of a large-pool segment for requests under [`MIN_LARGE_ALLOC`].
pub const LARGE_BUFFER: usize = 20 << 20;
/// From this size on, a request gets a segment of its own size.
pub const MIN_LARGE_ALLOC: usize = 10 << 20;
/// Such a segment is rounded up to a multiple of this.
pub const ROUND_LARGE: usize = 2 << 20;

/// What the allocator needs from a device.
pub trait Driver {
    /// A marker in a stream's queue of work.
    type Event;
    /// A segment of `bytes` bytes, or `None` when the device is out of memory.
    fn alloc_segment(&mut self, bytes: usize) -> Option<u64>;
    /// Gives back the segment at `addr` of `bytes` bytes.
    fn free_segment(&mut self, addr: u64, bytes: usize);
    /// An event after the work queued on `stream` so far.
    fn record_event(&mut self, stream: StreamId) -> Self::Event;
    /// Whether the work before `event` has completed; never blocks.
    fn event_done(&mut self, event: &Self::Event) -> bool;
    /// Blocks the CPU until the work before `event` has completed.
    fn wait_event(&mut self, event: &Self::Event);
}

/// A call of the learner's crate.
#[derive(Debug, Serialize, Deserialize)]
pub enum Call {
    /// `CachingAllocator::new(driver)`: answered with `u64`, its handle.
    New,
    /// `malloc(size, stream)`: answered with `Option<Result<BlockRef, Told>>`
    /// (`None`: no such allocator, an earlier call of it panicked).
    Malloc {
        /// The allocator.
        allocator: u64,
        /// The request.
        size: usize,
        /// Its stream.
        stream: StreamId,
    },
    /// `free(block)`: answered with `Option<Result<(), Told>>`.
    Free {
        /// The allocator.
        allocator: u64,
        /// The block's handle.
        block: u64,
    },
    /// `record_stream(&block, stream)`: answered with `Option<()>`.
    RecordStream {
        /// The allocator.
        allocator: u64,
        /// The block's handle.
        block: u64,
        /// The stream that uses it.
        stream: StreamId,
    },
    /// `empty_cache()`: answered with `Option<()>`.
    EmptyCache {
        /// The allocator.
        allocator: u64,
    },
    /// `memory_allocated()`: answered with `Option<usize>`.
    MemoryAllocated {
        /// The allocator.
        allocator: u64,
    },
    /// `memory_reserved()`: answered with `Option<usize>`.
    MemoryReserved {
        /// The allocator.
        allocator: u64,
    },
    /// `stats()`: answered with `Option<Stats>`.
    Stats {
        /// The allocator.
        allocator: u64,
    },
    /// `snapshot()`: answered with `Option<Vec<SegmentInfo>>`.
    Snapshot {
        /// The allocator.
        allocator: u64,
    },
    /// The drop of an allocator: answered with `()`.
    Drop {
        /// The allocator.
        allocator: u64,
    },
}

/// A call of the learner's allocator on its driver (a callback).
#[derive(Debug, Serialize, Deserialize)]
pub enum DriverCall {
    /// `alloc_segment(bytes)`: answered with `Option<u64>`.
    AllocSegment {
        /// The segment's size.
        bytes: usize,
    },
    /// `free_segment(addr, bytes)`: answered with `()`.
    FreeSegment {
        /// Its address.
        addr: u64,
        /// Its size.
        bytes: usize,
    },
    /// `record_event(stream)`: answered with `u64`, the event's handle.
    RecordEvent {
        /// The stream.
        stream: StreamId,
    },
    /// `event_done(&event)`: answered with `Option<bool>` (`None`: no such event).
    EventDone {
        /// The event's handle.
        event: u64,
    },
    /// `wait_event(&event)`: answered with `Option<()>`.
    WaitEvent {
        /// The event's handle.
        event: u64,
    },
}

/// The learner's caching allocator, which lives in the agent, over a driver
/// that lives here.
pub struct CachingAllocator<D: Driver> {
    handle: u64,
    driver: D,
    /// The driver's events the learner's allocator holds, by handle.
    events: HashMap<u64, D::Event>,
    next_event: u64,
}

impl<D: Driver> std::fmt::Debug for CachingAllocator<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CachingAllocator({} in the agent)", self.handle)
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

impl<D: Driver> CachingAllocator<D> {
    /// The learner's `CachingAllocator::new`, in the agent, over `driver`.
    pub fn new(driver: D) -> Self {
        let mut allocator = Self {
            handle: 0,
            driver,
            events: HashMap::new(),
            next_event: 0,
        };
        allocator.handle = allocator.call(&Call::New);
        allocator
    }

    /// Calls the learner's allocator, answering its driver calls with this
    /// allocator's driver.
    fn call<R: DeserializeOwned>(&mut self, call: &Call) -> R {
        invoke_with(call, &mut |request| self.drive(decode(request)))
    }

    /// One driver call of the learner's allocator, on the judge's driver.
    fn drive(&mut self, call: DriverCall) -> Vec<u8> {
        match call {
            DriverCall::AllocSegment { bytes } => encode(&self.driver.alloc_segment(bytes)),
            DriverCall::FreeSegment { addr, bytes } => {
                self.driver.free_segment(addr, bytes);
                encode(&())
            }
            DriverCall::RecordEvent { stream } => {
                let event = self.driver.record_event(stream);
                self.next_event += 1;
                self.events.insert(self.next_event, event);
                encode(&self.next_event)
            }
            DriverCall::EventDone { event } => {
                let done = match self.events.get(&event) {
                    Some(e) => Some(self.driver.event_done(e)),
                    None => None,
                };
                encode(&done)
            }
            DriverCall::WaitEvent { event } => {
                let waited = match self.events.get(&event) {
                    Some(e) => {
                        self.driver.wait_event(e);
                        Some(())
                    }
                    None => None,
                };
                encode(&waited)
            }
        }
    }

    /// The driver.
    pub fn driver(&self) -> &D {
        &self.driver
    }

    /// The driver, to change (a check finishes a simulated stream through it).
    pub fn driver_mut(&mut self) -> &mut D {
        &mut self.driver
    }

    /// The learner's `malloc`.
    pub fn malloc(&mut self, size: usize, stream: StreamId) -> Result<Block, AllocError> {
        let call = Call::Malloc {
            allocator: self.handle,
            size,
            stream,
        };
        let answer: Result<BlockRef, Told> = present(self.call(&call));
        answer.map(Block::from).map_err(AllocError::from)
    }

    /// The learner's `free`.
    pub fn free(&mut self, block: Block) -> Result<(), AllocError> {
        let call = Call::Free {
            allocator: self.handle,
            block: block.handle,
        };
        let answer: Result<(), Told> = present(self.call(&call));
        answer.map_err(AllocError::from)
    }

    /// The learner's `record_stream`.
    pub fn record_stream(&mut self, block: &Block, stream: StreamId) {
        let call = Call::RecordStream {
            allocator: self.handle,
            block: block.handle,
            stream,
        };
        present(self.call(&call))
    }

    /// The learner's `empty_cache`.
    pub fn empty_cache(&mut self) {
        let call = Call::EmptyCache {
            allocator: self.handle,
        };
        present(self.call(&call))
    }

    /// The learner's `memory_allocated`.
    pub fn memory_allocated(&self) -> usize {
        present(invoke_plain(&Call::MemoryAllocated {
            allocator: self.handle,
        }))
    }

    /// The learner's `memory_reserved`.
    pub fn memory_reserved(&self) -> usize {
        present(invoke_plain(&Call::MemoryReserved {
            allocator: self.handle,
        }))
    }

    /// The learner's `stats`.
    pub fn stats(&self) -> Stats {
        present(invoke_plain(&Call::Stats {
            allocator: self.handle,
        }))
    }

    /// The learner's `snapshot`.
    pub fn snapshot(&self) -> Vec<SegmentInfo> {
        present(invoke_plain(&Call::Snapshot {
            allocator: self.handle,
        }))
    }
}

/// A call of a method that takes `&self`: the learner's allocator may not
/// call its driver there (it has no `&mut` to), so a callback is the
/// learner's process breaking the protocol.
fn invoke_plain<R: DeserializeOwned>(call: &Call) -> R {
    judge_harness::bridge::invoke(call)
}

impl<D: Driver> Drop for CachingAllocator<D> {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let call = Call::Drop {
                allocator: self.handle,
            };
            let () = self.call(&call);
        }
    }
}
