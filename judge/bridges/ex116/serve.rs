//! Exercise 116 in the agent: the checker's calls made with the learner's
//! crate (`learner`); each decoding lives here between calls, by handle.

use bridge::{Call, Report};
use gpu::remote::agent as proxy;
use judge_harness::agent::{self, Agent};

/// The learner's decoding, kept between calls; its decoder is a proxy that
/// lives as long as the agent.
type Decoding = learner::Decoding<'static>;

/// Makes one call of the checker's with the learner's crate.
pub(crate) fn serve(agent: &Agent, request: &[u8]) -> Vec<u8> {
    match agent::request::<Call>(request) {
        Call::New {
            decoder,
            stream,
            config,
        } => {
            let link = agent.link();
            let decoder: &'static gpu::Decoder = Box::leak(Box::new(proxy::decoder(link, decoder)));
            let config = learner::Config {
                batch: config.batch,
                max_steps: config.max_steps,
                eos: config.eos,
            };
            let stream = proxy::stream(link, stream);
            let decoding = learner::Decoding::new(decoder, &stream, config);
            agent::answer(&decoding.map(|d| agent.keep(d)))
        }
        Call::Step { decoding, tokens } => {
            agent::answer(&agent.with(decoding, |d: &mut Decoding| d.step(&tokens)))
        }
        Call::Finish { decoding } => {
            let report = agent
                .take::<Decoding>(decoding)
                .map(|d| d.finish().map(report));
            agent::answer(&report)
        }
        Call::Drop { decoding } => {
            drop(agent.take::<Decoding>(decoding));
            agent::answer(&())
        }
    }
}

fn report(report: learner::Report) -> Report {
    Report {
        outputs: report.outputs,
        finished: report.finished,
        step_ms: report.step_ms,
    }
}
