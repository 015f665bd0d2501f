//! Exercise 117 in the agent: the checker's calls made with the learner's
//! crate (`learner`), on proxies of the judge's streams and pinned buffers.

use bridge::Call;
use gpu::remote::agent as proxy;
use gpu::remote::{Link, PinnedRef};
use gpu::{GpuError, PinnedBuffer};
use judge_harness::agent::{self, Agent};
use std::rc::Rc;

/// Makes one call of the checker's with the learner's crate.
pub(crate) fn serve(agent: &Agent, request: &[u8]) -> Vec<u8> {
    match agent::request::<Call>(request) {
        Call::Run {
            layer,
            chunks,
            outputs,
            streams,
        } => {
            let link = agent.link();
            let (Some(chunks), Some(outputs)) = (pinned(link, chunks), pinned(link, outputs))
            else {
                let site = gpu::CallSite::internal("the judge's pinned buffers");
                return agent::answer(&Err::<Vec<Vec<f32>>, _>(GpuError::ForeignHandle {
                    op: "run",
                    site,
                }));
            };
            let layer = learner::Layer { step: layer.step };
            let [copy_in, compute, copy_out] = streams.map(|s| proxy::stream(link, s));
            let streams = learner::Streams {
                copy_in: &copy_in,
                compute: &compute,
                copy_out: &copy_out,
            };
            agent::answer(&learner::run(&layer, &chunks, &outputs, streams))
        }
    }
}

/// Proxies of the judge's pinned buffers `refs`; `None` if one is not the
/// judge's.
fn pinned(link: &Rc<Link>, refs: Vec<PinnedRef>) -> Option<Vec<PinnedBuffer<f32>>> {
    refs.into_iter().map(|r| proxy::pinned(link, r)).collect()
}
