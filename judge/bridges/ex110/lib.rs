//! Exercise 110's API as the checks see it in the judge's checker: a
//! [`CapturedStep`] that lives in the agent ([`judge_harness::bridge`]),
//! made on the judge's stream and decoder, lent to it. Every copy, capture
//! and replay the learner's code queues runs on the judge's device, whose
//! trace the checks read.
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
use gpu::{Decoder, Result, Stream, View};
use judge_harness::bridge::invoke;
use serde::{Deserialize, Serialize};

/// A call of the learner's crate.
#[derive(Debug, Serialize, Deserialize)]
pub enum Call {
    /// `CapturedStep::new(stream, decoder, batch)`: answered with
    /// `Result<u64>`, the step's handle in the agent.
    New {
        /// The stream.
        stream: StreamRef,
        /// The decoder, lent.
        decoder: DecoderRef,
        /// Tokens per step.
        batch: usize,
    },
    /// `step.step(tokens, next)`: answered with `Option<Result<()>>`
    /// (`None`: no such step, an earlier call of it panicked).
    Step {
        /// The step.
        step: u64,
        /// The tokens to decode from.
        tokens: View<i32>,
        /// Where the next tokens go.
        next: View<i32>,
    },
    /// The drop of a step: answered with `()`.
    Drop {
        /// The step.
        step: u64,
    },
}

/// The learner's captured step, which lives in the agent.
#[derive(Debug)]
pub struct CapturedStep {
    handle: u64,
}

impl CapturedStep {
    /// The learner's `CapturedStep::new`, in the agent, on the judge's
    /// stream and decoder.
    pub fn new(stream: &Stream, decoder: &Decoder, batch: usize) -> Result<Self> {
        let handle: Result<u64> = invoke(&Call::New {
            stream: host::export_stream(stream),
            decoder: host::export_decoder(decoder),
            batch,
        });
        Ok(Self { handle: handle? })
    }

    /// The learner's `CapturedStep::step`, in the agent.
    pub fn step(&mut self, tokens: View<i32>, next: View<i32>) -> Result<()> {
        let answer: Option<Result<()>> = invoke(&Call::Step {
            step: self.handle,
            tokens,
            next,
        });
        answer.unwrap_or_else(|| {
            panic!("the learner's `CapturedStep` is gone: an earlier call of it panicked in the learner's code")
        })
    }
}

impl Drop for CapturedStep {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let () = invoke(&Call::Drop { step: self.handle });
        }
    }
}
