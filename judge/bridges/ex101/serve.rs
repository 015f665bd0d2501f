//! Exercise 101 in the agent: the checker's calls made with the learner's
//! crate (`learner`). Each allocator and each block it hands out lives here
//! between calls, by handle; an allocator's driver is `__RemoteDriver`,
//! whose every call goes back to the check's driver.

use judge_harness::agent_api as api;

include!("api.rs");

/// A block handed out: kept here, its handle and what it reports sent (as
/// the bridge's `Block` reads it).
impl AgentGive for learner::Block {
    type Wire = (u64, u64, usize, bridge::StreamId);
    fn give(self) -> Self::Wire {
        let (addr, size, stream) = (self.addr(), self.size(), self.stream().give());
        (judge_harness::agent::current().keep(self), addr, size, stream)
    }
}

/// A block given back (`free`): taken out of the agent's table.
impl<'a> AgentTake<'a> for learner::Block {
    type Wire = u64;
    type Owned = Option<learner::Block>;
    fn import(handle: u64, _: &std::rc::Rc<gpu::remote::Link>) -> Self::Owned {
        let taken = judge_harness::agent::current().take(handle);
        Some(judge_harness::api::taken("Block", taken))
    }
    fn pass(owned: &'a mut Self::Owned) -> Self {
        owned.take().expect("each argument is passed once")
    }
}

/// A block lent (`record_stream`): out of the table for the call, then back.
impl<'a> AgentTake<'a> for &'a learner::Block {
    type Wire = u64;
    type Owned = (u64, learner::Block);
    fn import(handle: u64, _: &std::rc::Rc<gpu::remote::Link>) -> Self::Owned {
        let taken = judge_harness::agent::current().take(handle);
        (handle, judge_harness::api::taken("Block", taken))
    }
    fn pass(owned: &'a mut Self::Owned) -> Self {
        &owned.1
    }
    fn restore((handle, block): Self::Owned) {
        judge_harness::agent::current().put_back(handle, block);
    }
}
