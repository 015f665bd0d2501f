//! Exercise 113's API as the checks see it in the judge's checker: a
//! [`BucketedStep`] that lives in the agent ([`judge_harness::bridge`]),
//! made on the judge's stream and decoder, lent to it. Every copy, fill and
//! replay the learner's code queues runs on the judge's device, whose trace
//! the checks read, and whose static buffers they read between steps.
//!
//! `serve.rs` is the agent's side: compiled into the agent with the
//! learner's crate as `learner` and this one as `bridge`.

#[cfg(test)]
extern crate self as bridge;

#[cfg(test)]
#[path = "serve.rs"]
mod serve;
#[cfg(test)]
mod tests;

use gpu::remote::{DecoderRef, StreamRef, host};
use gpu::{Decoder, Stream, View};
use judge_harness::bridge::invoke;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The batch sizes a graph is captured for, smallest first.
pub const BUCKETS: [usize; 4] = [1, 2, 4, 8];
/// The largest batch a step takes: the largest bucket.
pub const MAX_ROWS: usize = 8;
/// The padding token.
pub const PAD: i32 = 0;

/// Why a step failed: the learner's error, as it travels from the agent.
#[derive(Debug, Serialize, Deserialize)]
pub enum Error {
    /// A GPU call failed.
    Gpu(gpu::GpuError),
    /// The batch has more rows than the largest bucket.
    TooManyRows {
        /// The rows of the batch.
        rows: usize,
        /// The largest bucket.
        max: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Gpu(e) => write!(f, "{e}"),
            Self::TooManyRows { rows, max } => write!(
                f,
                "a batch of {rows} rows has no bucket: split it into batches of at most `MAX_ROWS` = {max} rows"
            ),
        }
    }
}

impl From<gpu::GpuError> for Error {
    fn from(e: gpu::GpuError) -> Self {
        Self::Gpu(e)
    }
}

/// A call of the learner's crate.
#[derive(Debug, Serialize, Deserialize)]
pub enum Call {
    /// `BucketedStep::new(stream, decoder)`: answered with
    /// `Result<u64, Error>`, the step's handle in the agent.
    New {
        /// The stream.
        stream: StreamRef,
        /// The decoder, lent.
        decoder: DecoderRef,
    },
    /// `step.step(tokens, next)`: answered with `Option<Result<(), Error>>`
    /// (`None`: no such step, an earlier call of it panicked).
    Step {
        /// The step.
        step: u64,
        /// The tokens to decode from.
        tokens: View<i32>,
        /// Where the next tokens go.
        next: View<i32>,
    },
    /// `step.static_buffers()`: answered with
    /// `Option<(View<i32>, View<i32>)>`.
    StaticBuffers {
        /// The step.
        step: u64,
    },
    /// The drop of a step: answered with `()`.
    Drop {
        /// The step.
        step: u64,
    },
    /// `bucket_for(rows)`: answered with `Option<usize>`.
    BucketFor {
        /// The rows of a batch.
        rows: usize,
    },
}

/// The learner's `bucket_for`, in the agent.
pub fn bucket_for(rows: usize) -> Option<usize> {
    invoke(&Call::BucketFor { rows })
}

/// The learner's bucketed step, which lives in the agent.
#[derive(Debug)]
pub struct BucketedStep {
    handle: u64,
}

/// The panic of a call to a step whose earlier call panicked.
fn gone() -> ! {
    panic!(
        "the learner's `BucketedStep` is gone: an earlier call of it panicked in the learner's code"
    )
}

impl BucketedStep {
    /// The learner's `BucketedStep::new`, in the agent, on the judge's
    /// stream and decoder.
    pub fn new(stream: &Stream, decoder: &Decoder) -> Result<Self, Error> {
        let handle: Result<u64, Error> = invoke(&Call::New {
            stream: host::export_stream(stream),
            decoder: host::export_decoder(decoder),
        });
        Ok(Self { handle: handle? })
    }

    /// The learner's `BucketedStep::step`, in the agent.
    pub fn step(&mut self, tokens: View<i32>, next: View<i32>) -> Result<(), Error> {
        let answer: Option<Result<(), Error>> = invoke(&Call::Step {
            step: self.handle,
            tokens,
            next,
        });
        answer.unwrap_or_else(|| gone())
    }

    /// The learner's `BucketedStep::static_buffers`, in the agent: views
    /// of the judge's device.
    pub fn static_buffers(&self) -> (View<i32>, View<i32>) {
        let answer: Option<(View<i32>, View<i32>)> =
            invoke(&Call::StaticBuffers { step: self.handle });
        answer.unwrap_or_else(|| gone())
    }
}

impl Drop for BucketedStep {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let () = invoke(&Call::Drop { step: self.handle });
        }
    }
}
