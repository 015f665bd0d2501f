//! Exercise 104 in the agent: the checker's calls made with the learner's
//! crate (`learner`); each server lives here between calls, by handle.

use bridge::{Call, LogLine, Report};
use gpu::remote::agent as proxy;
use judge_harness::agent::{self, Agent};

/// The learner's server, kept between calls; its decoder is a proxy that
/// lives as long as the agent.
type Server = learner::Server<'static>;

/// Makes one call of the checker's with the learner's crate.
pub(crate) fn serve(agent: &Agent, request: &[u8]) -> Vec<u8> {
    match agent::request::<Call>(request) {
        Call::New {
            decoder,
            compute,
            copy,
            config,
        } => {
            let link = agent.link();
            let decoder: &'static gpu::Decoder = Box::leak(Box::new(proxy::decoder(link, decoder)));
            let config = learner::Config {
                batch: config.batch,
                max_steps: config.max_steps,
                log_every: config.log_every,
                eos: config.eos,
                host_work: config.host_work,
            };
            let (compute, copy) = (proxy::stream(link, compute), proxy::stream(link, copy));
            let server = learner::Server::new(decoder, &compute, &copy, config);
            agent::answer(&server.map(|s| agent.keep(s)))
        }
        Call::Step { server, tokens } => {
            agent::answer(&agent.with(server, |s: &mut Server| s.step(&tokens)))
        }
        Call::Finish { server } => {
            let report = agent.take::<Server>(server).map(|s| s.finish().map(report));
            agent::answer(&report)
        }
        Call::Drop { server } => {
            drop(agent.take::<Server>(server));
            agent::answer(&())
        }
    }
}

fn report(report: learner::Report) -> Report {
    Report {
        outputs: report.outputs,
        logs: report
            .logs
            .into_iter()
            .map(|l| LogLine {
                step: l.step,
                tokens: l.tokens,
                finished: l.finished,
            })
            .collect(),
        step_ms: report.step_ms,
    }
}
