//! Exercise 111 in the agent: the checker's call made with the learner's
//! crate (`learner`), on proxies of the judge's streams and batch.

use bridge::Call;
use gpu::GpuError;
use gpu::remote::agent as proxy;
use judge_harness::agent::{self, Agent};

/// Makes one call of the checker's with the learner's crate.
pub(crate) fn serve(agent: &Agent, request: &[u8]) -> Vec<u8> {
    let link = agent.link();
    match agent::request::<Call>(request) {
        Call::Handoff {
            producer,
            consumer,
            host,
            x,
            y,
        } => {
            let Some(host) = proxy::pinned::<f32>(link, host) else {
                let site = gpu::CallSite::internal("the judge's batch");
                return agent::answer(&Err::<(), _>(GpuError::ForeignHandle {
                    op: "handoff",
                    site,
                }));
            };
            let (producer, consumer) =
                (proxy::stream(link, producer), proxy::stream(link, consumer));
            agent::answer(&learner::handoff(&producer, &consumer, &host, x, y))
        }
    }
}
