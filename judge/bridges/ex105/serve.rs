//! Exercise 105 in the agent: the checker's calls made with the learner's
//! crate (`learner`), its types turned into the bridge's (`bridge`).

use bridge::{Call, Callback, Timing};
use gpu::remote::agent as proxy;
use gpu::{GpuError, Stream};
use judge_harness::agent::{self, Agent};

/// Makes one call of the checker's with the learner's crate.
pub(crate) fn serve(agent: &Agent, request: &[u8]) -> Vec<u8> {
    match agent::request::<Call>(request) {
        Call::Measure { stream, plan, work } => {
            let stream = proxy::stream(agent.link(), stream);
            let plan = learner::Plan {
                warmup: plan.warmup,
                reps: plan.reps,
            };
            let work = learner::Matmul {
                m: work.m,
                n: work.n,
                k: work.k,
            };
            let mut run = |on: &Stream| match proxy::stream_ref(on) {
                Some(stream) => agent.callback(&Callback::Run { stream }),
                None => Err(GpuError::ForeignHandle {
                    op: "run",
                    site: gpu::CallSite::internal("a stream of a device the judge did not give"),
                }),
            };
            let timing = learner::measure(&stream, plan, work, &mut run).map(|t| Timing {
                samples_ms: t.samples_ms,
                median_ms: t.median_ms,
                flops_per_s: t.flops_per_s,
            });
            agent::answer(&timing)
        }
    }
}
