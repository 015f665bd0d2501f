//! Exercise 101 in the agent: the checker's calls made with the learner's
//! crate (`learner`). Each allocator and each block it hands out lives here
//! between calls, by handle; an allocator's driver is [`RemoteDriver`],
//! whose every call goes back to the judge's driver.

use bridge::{BlockRef, Call, DriverCall, Told};
use judge_harness::agent::{self, Agent};
use judge_harness::agent_api as api;

include!("api.rs");

/// The learner's allocator over the judge's driver.
type Allocator = learner::CachingAllocator<RemoteDriver>;

/// The driver of an allocator in the agent: the judge's, by callbacks.
/// Its events are handles of the judge's events.
#[derive(Debug)]
pub(crate) struct RemoteDriver;

impl learner::Driver for RemoteDriver {
    type Event = u64;

    fn alloc_segment(&mut self, bytes: usize) -> Option<u64> {
        agent::call_back(&DriverCall::AllocSegment { bytes })
    }

    fn free_segment(&mut self, addr: u64, bytes: usize) {
        agent::call_back(&DriverCall::FreeSegment { addr, bytes })
    }

    fn record_event(&mut self, stream: learner::StreamId) -> u64 {
        agent::call_back(&DriverCall::RecordEvent {
            stream: stream.give(),
        })
    }

    fn event_done(&mut self, event: &u64) -> bool {
        let done: Option<bool> = agent::call_back(&DriverCall::EventDone { event: *event });
        done.expect("the judge's driver knows every event it recorded")
    }

    fn wait_event(&mut self, event: &u64) {
        let waited: Option<()> = agent::call_back(&DriverCall::WaitEvent { event: *event });
        waited.expect("the judge's driver knows every event it recorded");
    }
}

/// Makes one call of the checker's with the learner's crate.
pub(crate) fn serve(agent: &Agent, request: &[u8]) -> Vec<u8> {
    let mine = |allocator: u64, f: &mut dyn FnMut(&mut Allocator) -> Vec<u8>| -> Vec<u8> {
        agent
            .with(allocator, |a: &mut Allocator| f(a))
            .unwrap_or_else(|| agent::answer(&None::<()>))
    };
    match agent::request::<Call>(request) {
        Call::New => agent::answer(&agent.keep(learner::CachingAllocator::new(RemoteDriver))),
        Call::Malloc {
            allocator,
            size,
            stream,
        } => mine(allocator, &mut |a| {
            let block = a.malloc(size, learner::StreamId(stream.0));
            agent::answer(&Some(block.map(|b| block_ref(agent, b)).map_err(told)))
        }),
        Call::Free { allocator, block } => mine(allocator, &mut |a| {
            let answer = agent
                .take::<learner::Block>(block)
                .map(|block| a.free(block).map_err(told));
            agent::answer(&answer)
        }),
        Call::RecordStream {
            allocator,
            block,
            stream,
        } => mine(allocator, &mut |a| {
            let stream = learner::StreamId(stream.0);
            agent::answer(&agent.with(block, |b: &mut learner::Block| a.record_stream(b, stream)))
        }),
        Call::EmptyCache { allocator } => mine(allocator, &mut |a| {
            a.empty_cache();
            agent::answer(&Some(()))
        }),
        Call::MemoryAllocated { allocator } => mine(allocator, &mut |a| {
            agent::answer(&Some(a.memory_allocated()))
        }),
        Call::MemoryReserved { allocator } => mine(allocator, &mut |a| {
            agent::answer(&Some(a.memory_reserved()))
        }),
        Call::Stats { allocator } => {
            mine(allocator, &mut |a| agent::answer(&Some(a.stats().give())))
        }
        Call::Snapshot { allocator } => mine(allocator, &mut |a| {
            agent::answer(&Some(a.snapshot().give()))
        }),
        Call::Drop { allocator } => {
            drop(agent.take::<Allocator>(allocator));
            agent::answer(&())
        }
    }
}

/// Keeps `block` here and says what it is.
fn block_ref(agent: &Agent, block: learner::Block) -> BlockRef {
    let (addr, size, stream) = (block.addr(), block.size(), block.stream().give());
    BlockRef {
        handle: agent.keep(block),
        addr,
        size,
        stream,
    }
}

fn told(error: learner::AllocError) -> Told {
    Told {
        message: error.to_string(),
        error: error.give(),
    }
}
