//! Exercise 109 in the agent: the checker's questions asked of the
//! learner's crate (`learner`), its `Pool` turned into the bridge's
//! (`bridge`).

use bridge::{Pool, Request};
use judge_harness::agent::{self, Agent};

/// Makes one call of the checker's with the learner's crate.
pub(crate) fn serve(_: &Agent, request: &[u8]) -> Vec<u8> {
    match agent::request::<Request>(request) {
        Request::RoundSize(size) => agent::answer(&learner::round_size(size)),
        Request::PoolFor(rounded) => agent::answer(&pool(learner::pool_for(rounded))),
        Request::SegmentSize(rounded) => agent::answer(&learner::segment_size(rounded)),
    }
}

fn pool(pool: learner::Pool) -> Pool {
    match pool {
        learner::Pool::Small => Pool::Small,
        learner::Pool::Large => Pool::Large,
    }
}
