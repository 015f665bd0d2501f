//! Exercise 114 in the agent: the checker's calls made with the learner's
//! crate (`learner`), on proxies of the judge's streams. Each allocator and
//! each block it hands out lives here between calls, by handle.

use bridge::{BlockRef, Call};
use gpu::remote::agent as proxy;
use judge_harness::agent::{self, Agent};
use learner::{Block, StreamAllocator};

/// Makes one call of the checker's with the learner's crate.
pub(crate) fn serve(agent: &Agent, request: &[u8]) -> Vec<u8> {
    let link = agent.link();
    let mine = |allocator: u64, f: &mut dyn FnMut(&mut StreamAllocator) -> Vec<u8>| -> Vec<u8> {
        agent
            .with(allocator, |a: &mut StreamAllocator| f(a))
            .unwrap_or_else(|| agent::answer(&None::<()>))
    };
    match agent::request::<Call>(request) {
        Call::New { owner } => {
            let owner = proxy::stream(link, owner);
            agent::answer(&agent.keep(StreamAllocator::new(&owner)))
        }
        Call::Malloc { allocator, bytes } => mine(allocator, &mut |a| {
            let block = a.malloc(bytes).map(|block| BlockRef {
                addr: block.addr(),
                bytes: block.bytes(),
                handle: agent.keep(block),
            });
            agent::answer(&Some(block))
        }),
        Call::RecordStream {
            allocator,
            block,
            stream,
        } => mine(allocator, &mut |a| {
            let stream = proxy::stream(link, stream);
            agent::answer(&agent.with(block, |b: &mut Block| a.record_stream(b, &stream)))
        }),
        Call::Free { allocator, block } => mine(allocator, &mut |a| {
            let answer = agent.take::<Block>(block).map(|block| a.free(block));
            agent::answer(&answer)
        }),
        Call::DropBlock { block } => {
            drop(agent.take::<Block>(block));
            agent::answer(&())
        }
        Call::Drop { allocator } => {
            drop(agent.take::<StreamAllocator>(allocator));
            agent::answer(&())
        }
    }
}
