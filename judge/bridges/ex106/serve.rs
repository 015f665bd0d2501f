//! Exercise 106 in the agent: the checker's calls made with the learner's
//! crate (`learner`), on proxies of the judge's streams and batches.

use bridge::Call;
use gpu::remote::agent as proxy;
use gpu::{GpuError, PinnedBuffer};
use judge_harness::agent::{self, Agent};

/// Makes one call of the checker's with the learner's crate.
pub(crate) fn serve(agent: &Agent, request: &[u8]) -> Vec<u8> {
    match agent::request::<Call>(request) {
        Call::Run {
            model,
            batches,
            copy,
            compute,
        } => {
            let link = agent.link();
            let batches: Option<Vec<PinnedBuffer<f32>>> = batches
                .into_iter()
                .map(|b| proxy::pinned(link, b))
                .collect();
            let Some(batches) = batches else {
                let site = gpu::CallSite::internal("the judge's batches");
                return agent::answer(&Err::<Vec<f32>, _>(GpuError::ForeignHandle {
                    op: "run",
                    site,
                }));
            };
            let model = learner::Model { step: model.step };
            let (copy, compute) = (proxy::stream(link, copy), proxy::stream(link, compute));
            agent::answer(&learner::run(&model, &batches, &copy, &compute))
        }
    }
}
