//! Exercise 110 in the agent: the checker's calls made with the learner's
//! crate (`learner`), on proxies of the judge's stream and decoder; each
//! captured step lives here between calls, by handle.

use bridge::Call;
use gpu::remote::agent as proxy;
use judge_harness::agent::{self, Agent};

/// Makes one call of the checker's with the learner's crate.
pub(crate) fn serve(agent: &Agent, request: &[u8]) -> Vec<u8> {
    let link = agent.link();
    match agent::request::<Call>(request) {
        Call::New {
            stream,
            decoder,
            batch,
        } => {
            let (stream, decoder) = (proxy::stream(link, stream), proxy::decoder(link, decoder));
            let step = learner::CapturedStep::new(&stream, &decoder, batch);
            agent::answer(&step.map(|s| agent.keep(s)))
        }
        Call::Step { step, tokens, next } => {
            agent::answer(&agent.with(step, |s: &mut learner::CapturedStep| s.step(tokens, next)))
        }
        Call::Drop { step } => {
            drop(agent.take::<learner::CapturedStep>(step));
            agent::answer(&())
        }
    }
}
