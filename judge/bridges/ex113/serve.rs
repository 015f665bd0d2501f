//! Exercise 113 in the agent: the checker's calls made with the learner's
//! crate (`learner`), on proxies of the judge's stream and decoder; each
//! step lives here between calls, by handle.

use bridge::{Call, Error};
use gpu::remote::agent as proxy;
use judge_harness::agent::{self, Agent};

/// Makes one call of the checker's with the learner's crate.
pub(crate) fn serve(agent: &Agent, request: &[u8]) -> Vec<u8> {
    let link = agent.link();
    match agent::request::<Call>(request) {
        Call::New { stream, decoder } => {
            let (stream, decoder) = (proxy::stream(link, stream), proxy::decoder(link, decoder));
            let step = learner::BucketedStep::new(&stream, &decoder).map_err(error);
            agent::answer(&step.map(|s| agent.keep(s)))
        }
        Call::Step { step, tokens, next } => {
            agent::answer(&agent.with(step, |s: &mut learner::BucketedStep| {
                s.step(tokens, next).map_err(error)
            }))
        }
        Call::StaticBuffers { step } => {
            agent::answer(&agent.with(step, |s: &mut learner::BucketedStep| s.static_buffers()))
        }
        Call::Drop { step } => {
            drop(agent.take::<learner::BucketedStep>(step));
            agent::answer(&())
        }
        Call::BucketFor { rows } => agent::answer(&learner::bucket_for(rows)),
    }
}

/// The learner's error as the bridge's.
fn error(e: learner::Error) -> Error {
    match e {
        learner::Error::Gpu(e) => Error::Gpu(e),
        learner::Error::TooManyRows { rows, max } => Error::TooManyRows { rows, max },
    }
}
