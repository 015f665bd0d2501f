//! Exercise 102 in the agent: the checker's calls made with the learner's
//! crate (`learner`); each sampler lives here between calls, by handle, on
//! proxies of the judge's stream and decoder that live as long as the agent.

use bridge::{Batch, Call};
use gpu::remote::agent as proxy;
use gpu::{Decoder, Stream};
use judge_harness::agent::{self, Agent};

type Sampler = learner::Sampler<'static>;

/// Makes one call of the checker's with the learner's crate.
pub(crate) fn serve(agent: &Agent, request: &[u8]) -> Vec<u8> {
    let link = agent.link();
    match agent::request::<Call>(request) {
        Call::Generate {
            stream,
            decoder,
            batch,
            host_work,
        } => {
            let (stream, decoder) = (proxy::stream(link, stream), proxy::decoder(link, decoder));
            agent::answer(&learner::generate(
                &stream,
                &decoder,
                &learner_batch(batch),
                host_work,
            ))
        }
        Call::NewSampler {
            stream,
            decoder,
            batch,
        } => {
            let stream: &'static Stream = Box::leak(Box::new(proxy::stream(link, stream)));
            let decoder: &'static Decoder = Box::leak(Box::new(proxy::decoder(link, decoder)));
            let sampler = learner::Sampler::new(stream, decoder, &learner_batch(batch));
            agent::answer(&sampler.map(|s| agent.keep(s)))
        }
        Call::Submit { sampler } => {
            agent::answer(&agent.with(sampler, |s: &mut Sampler| s.submit()))
        }
        Call::Process { sampler } => {
            agent::answer(&agent.with(sampler, |s: &mut Sampler| s.process()))
        }
        Call::IsFinished { sampler } => {
            agent::answer(&agent.with(sampler, |s: &mut Sampler| s.is_finished()))
        }
        Call::IntoOutputs { sampler } => {
            agent::answer(&agent.take::<Sampler>(sampler).map(Sampler::into_outputs))
        }
        Call::Drop { sampler } => {
            drop(agent.take::<Sampler>(sampler));
            agent::answer(&())
        }
    }
}

fn learner_batch(batch: Batch) -> learner::Batch {
    learner::Batch {
        requests: batch
            .requests
            .into_iter()
            .map(|r| learner::Request {
                prompt: r.prompt,
                max_new_tokens: r.max_new_tokens,
            })
            .collect(),
        eos: batch.eos,
    }
}
