//! Exercise 115 in the agent: the checker's calls made with the learner's
//! crate (`learner`), on proxies of the judge's stream and decoder.

use bridge::Call;
use gpu::remote::agent as proxy;
use judge_harness::agent::{self, Agent};

/// Makes one call of the checker's with the learner's crate.
pub(crate) fn serve(agent: &Agent, request: &[u8]) -> Vec<u8> {
    let link = agent.link();
    match agent::request::<Call>(request) {
        Call::Generate {
            stream,
            decoder,
            prompts,
            steps,
            host_work,
        } => {
            let (stream, decoder) = (proxy::stream(link, stream), proxy::decoder(link, decoder));
            let tokens = learner::generate(&stream, &decoder, &prompts, steps, host_work);
            agent::answer(&tokens)
        }
    }
}
