//! Exercise 118 in the agent: the checker's calls made with the learner's
//! crate (`learner`).

use bridge::{Call, Callback};
use gpu::remote::agent as proxy;
use gpu::{GpuError, Stream};
use judge_harness::agent::{self, Agent};

/// Makes one call of the checker's with the learner's crate.
pub(crate) fn serve(agent: &Agent, request: &[u8]) -> Vec<u8> {
    match agent::request::<Call>(request) {
        Call::Submit {
            stream,
            steps,
            depth,
        } => {
            let stream = proxy::stream(agent.link(), stream);
            let mut step = |on: &Stream, k: usize| match proxy::stream_ref(on) {
                Some(stream) => agent.callback(&Callback::Step { stream, k }),
                None => Err(GpuError::ForeignHandle {
                    op: "step",
                    site: gpu::CallSite::internal("a stream of a device the judge did not give"),
                }),
            };
            let done = learner::submit(&stream, steps, depth, &mut step);
            agent::answer(&done)
        }
    }
}
