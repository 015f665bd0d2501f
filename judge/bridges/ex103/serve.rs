//! Exercise 103 in the agent: the checker's calls made with the learner's
//! crate (`learner`); each runner lives here between calls, by handle.

use bridge::{Call, Error};
use gpu::remote::agent as proxy;
use judge_harness::agent::{self, Agent};

/// Makes one call of the checker's with the learner's crate.
pub(crate) fn serve(agent: &Agent, request: &[u8]) -> Vec<u8> {
    match agent::request::<Call>(request) {
        Call::BucketFor { rows } => agent::answer(&learner::bucket_for(rows)),
        Call::NewRunner { stream, layers } => {
            let model = learner::Model::new();
            if model.layers() != layers.as_slice() {
                return agent::answer(&Err::<u64, _>(Error::ModelChanged));
            }
            let stream = proxy::stream(agent.link(), stream);
            let runner = learner::Runner::new(&stream, &model).map_err(error);
            agent::answer(&runner.map(|r| agent.keep(r)))
        }
        Call::Decode {
            runner,
            inputs,
            outputs,
        } => agent::answer(&agent.with(runner, |r: &mut learner::Runner| {
            r.decode(&inputs, &outputs).map_err(error)
        })),
        Call::Drop { runner } => {
            drop(agent.take::<learner::Runner>(runner));
            agent::answer(&())
        }
    }
}

/// The learner's error as the bridge's.
fn error(e: learner::Error) -> Error {
    match e {
        learner::Error::Gpu(e) => Error::Gpu(e),
        learner::Error::Batches { inputs, outputs } => Error::Batches { inputs, outputs },
        learner::Error::Shape {
            index,
            input,
            output,
        } => Error::Shape {
            index,
            input,
            output,
        },
        learner::Error::BatchSize { rows } => Error::BatchSize { rows },
    }
}
