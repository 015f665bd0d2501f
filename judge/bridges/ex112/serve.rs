//! Exercise 112 in the agent: the checker's calls made with the learner's
//! crate (`learner`), its types turned into the bridge's (`bridge`).

use bridge::{Bound, Call, Callback, Profile};
use gpu::remote::agent as proxy;
use gpu::{GpuError, Stream};
use judge_harness::agent::{self, Agent};

/// Makes one call of the checker's with the learner's crate.
pub(crate) fn serve(agent: &Agent, request: &[u8]) -> Vec<u8> {
    match agent::request::<Call>(request) {
        Call::Profile { stream, plan } => {
            let stream = proxy::stream(agent.link(), stream);
            let plan = learner::Plan {
                warmup: plan.warmup,
                launches: plan.launches,
            };
            let mut launch = |on: &Stream| match proxy::stream_ref(on) {
                Some(stream) => agent.callback(&Callback::Launch { stream }),
                None => Err(GpuError::ForeignHandle {
                    op: "launch",
                    site: gpu::CallSite::internal("a stream of a device the judge did not give"),
                }),
            };
            let profile = learner::profile(&stream, plan, &mut launch).map(from_learner);
            agent::answer(&profile)
        }
        Call::Bound(profile) => agent::answer(&bound(to_learner(profile).bound())),
        Call::Crossover(profiles) => {
            let profiles: Vec<learner::Profile> = profiles.into_iter().map(to_learner).collect();
            agent::answer(&learner::crossover(&profiles))
        }
    }
}

fn from_learner(p: learner::Profile) -> Profile {
    Profile {
        cpu_us: p.cpu_us,
        gpu_us: p.gpu_us,
    }
}

fn to_learner(p: Profile) -> learner::Profile {
    learner::Profile {
        cpu_us: p.cpu_us,
        gpu_us: p.gpu_us,
    }
}

fn bound(bound: learner::Bound) -> Bound {
    match bound {
        learner::Bound::Launch => Bound::Launch,
        learner::Bound::Compute => Bound::Compute,
    }
}
