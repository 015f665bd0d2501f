//! Exercise 103's API as the checks see it in the judge's checker: the
//! constants and the given [`Model`] of `exercises/103-graph-static-buffers`
//! (the judge's own copy: its reference is the truth, whatever the learner
//! did to theirs), and a [`Runner`] and a [`bucket_for`] that call the
//! learner's in the agent ([`judge_harness::bridge`]).
//!
//! `serve.rs` is the agent's side: compiled into the agent with the
//! learner's crate as `learner` and this one as `bridge`.

#[cfg(test)]
extern crate self as bridge;

mod error;
mod model;
#[cfg(test)]
#[path = "serve.rs"]
mod serve;
#[cfg(test)]
mod tests;

pub use error::Error;
pub use model::{LAYERS, Model, WIDTH};

use gpu::remote::{StreamRef, host};
use gpu::{Stream, View};
use judge_harness::bridge::invoke;
use serde::{Deserialize, Serialize};

/// The batch sizes a graph is captured for.
pub const BUCKETS: [usize; 5] = [1, 2, 4, 8, 16];
/// The largest batch a step takes: the largest bucket.
pub const MAX_ROWS: usize = 16;

/// A call of the learner's crate.
#[derive(Debug, Serialize, Deserialize)]
pub enum Call {
    /// `bucket_for(rows)`: answered with `Option<usize>`.
    BucketFor {
        /// The rows of a batch.
        rows: usize,
    },
    /// `Runner::new(stream, &Model::new())`: answered with
    /// `Result<u64, Error>`, the runner's handle in the agent. The model's
    /// layers travel, to be compared with the learner's `Model::new()`.
    NewRunner {
        /// The stream.
        stream: StreamRef,
        /// The layers of the judge's model.
        layers: Vec<(f32, f32)>,
    },
    /// `runner.decode(inputs, outputs)`: answered with
    /// `Option<Result<(), Error>>` (`None`: no such runner, an earlier call
    /// of it panicked).
    Decode {
        /// The runner.
        runner: u64,
        /// The input batches.
        inputs: Vec<View<f32>>,
        /// Their output views.
        outputs: Vec<View<f32>>,
    },
    /// The drop of a runner: answered with `()`.
    Drop {
        /// The runner.
        runner: u64,
    },
}

/// The learner's `bucket_for`, asked in the agent.
pub fn bucket_for(rows: usize) -> Option<usize> {
    invoke(&Call::BucketFor { rows })
}

/// The learner's runner, which lives in the agent.
#[derive(Debug)]
pub struct Runner {
    handle: u64,
}

impl Runner {
    /// The learner's `Runner::new`, in the agent, on the judge's stream.
    pub fn new(stream: &Stream, model: &Model) -> Result<Self, Error> {
        let handle: Result<u64, Error> = invoke(&Call::NewRunner {
            stream: host::export_stream(stream),
            layers: model.layers().to_vec(),
        });
        Ok(Self { handle: handle? })
    }

    /// The learner's `Runner::decode`, in the agent.
    pub fn decode(&mut self, inputs: &[View<f32>], outputs: &[View<f32>]) -> Result<(), Error> {
        let answer: Option<Result<(), Error>> = invoke(&Call::Decode {
            runner: self.handle,
            inputs: inputs.to_vec(),
            outputs: outputs.to_vec(),
        });
        answer.unwrap_or_else(|| {
            panic!("the learner's `Runner` is gone: an earlier call of it panicked in the learner's code")
        })
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let () = invoke(&Call::Drop {
                runner: self.handle,
            });
        }
    }
}
