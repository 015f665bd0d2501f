//! Exercise 116's API as the checks see it in the judge's checker: the
//! types of `exercises/116-step-without-syncs` and a [`Decoding`] that
//! stands for the learner's, which lives in the agent
//! ([`judge_harness::bridge`]) and runs on the judge's stream and decoder,
//! lent to it. Every allocation, copy, launch and wait the learner's code
//! makes runs on the judge's device, whose trace the checks read.
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
use gpu::{Decoder, Result, Stream};
use judge_harness::bridge::invoke;
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;

/// How the decoding runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// Requests in the batch.
    pub batch: usize,
    /// The most steps the decoding will be asked to run.
    pub max_steps: usize,
    /// The end-of-sequence token.
    pub eos: i32,
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// For each request, its predictions in step order, up to its first `eos`.
    pub outputs: Vec<Vec<i32>>,
    /// How many requests finished.
    pub finished: usize,
    /// Each step's GPU time in milliseconds.
    pub step_ms: Vec<f64>,
}

/// A call of the learner's crate.
#[derive(Debug, Serialize, Deserialize)]
pub enum Call {
    /// `Decoding::new(decoder, stream, config)`: answered with
    /// `Result<u64>`, the decoding's handle in the agent.
    New {
        /// The decoder, lent.
        decoder: DecoderRef,
        /// The stream.
        stream: StreamRef,
        /// The configuration.
        config: Config,
    },
    /// `decoding.step(tokens)`: answered with `Option<Result<()>>` (`None`:
    /// no such decoding, an earlier call of it panicked).
    Step {
        /// The decoding.
        decoding: u64,
        /// One token per request.
        tokens: Vec<i32>,
    },
    /// `decoding.finish()`: answered with `Option<Result<Report>>`.
    Finish {
        /// The decoding.
        decoding: u64,
    },
    /// The drop of a decoding never finished: answered with `()`.
    Drop {
        /// The decoding.
        decoding: u64,
    },
}

/// The learner's decoding, which lives in the agent.
#[derive(Debug)]
pub struct Decoding<'d> {
    handle: u64,
    finished: bool,
    _decoder: PhantomData<&'d Decoder>,
}

/// A decoding's answer, or the end of the check when the decoding is gone.
fn present<T>(answer: Option<T>) -> T {
    answer.unwrap_or_else(|| {
        panic!(
            "the learner's `Decoding` is gone: an earlier call of it panicked in the learner's code"
        )
    })
}

impl<'d> Decoding<'d> {
    /// The learner's `Decoding::new`, in the agent.
    pub fn new(decoder: &'d Decoder, stream: &Stream, config: Config) -> Result<Self> {
        let handle: Result<u64> = invoke(&Call::New {
            decoder: host::export_decoder(decoder),
            stream: host::export_stream(stream),
            config,
        });
        Ok(Self {
            handle: handle?,
            finished: false,
            _decoder: PhantomData,
        })
    }

    /// The learner's `Decoding::step`, in the agent.
    pub fn step(&mut self, tokens: &[i32]) -> Result<()> {
        present(invoke(&Call::Step {
            decoding: self.handle,
            tokens: tokens.to_vec(),
        }))
    }

    /// The learner's `Decoding::finish`, in the agent.
    pub fn finish(mut self) -> Result<Report> {
        self.finished = true;
        present(invoke(&Call::Finish {
            decoding: self.handle,
        }))
    }
}

impl Drop for Decoding<'_> {
    fn drop(&mut self) {
        if !self.finished && !std::thread::panicking() {
            let () = invoke(&Call::Drop {
                decoding: self.handle,
            });
        }
    }
}
