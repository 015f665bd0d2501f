//! Exercise 115's API as the checks see it in the judge's checker: a
//! [`generate`] that runs the learner's in the agent
//! ([`judge_harness::bridge`]) on the judge's stream and decoder, lent to it.
//! Every step, copy, event and pinned read the learner's code makes runs on
//! the judge's device, whose trace and race checker the checks read.
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
use std::time::Duration;

/// A call of the learner's crate.
#[derive(Debug, Serialize, Deserialize)]
pub enum Call {
    /// `generate(stream, decoder, prompts, steps, host_work)`: answered
    /// with `Result<Vec<Vec<i32>>>`.
    Generate {
        /// The stream.
        stream: StreamRef,
        /// The decoder, lent.
        decoder: DecoderRef,
        /// The last token of each prompt.
        prompts: Vec<i32>,
        /// The steps to decode.
        steps: usize,
        /// The CPU's work on each step's tokens.
        host_work: Duration,
    },
}

/// The learner's `generate`, in the agent.
pub fn generate(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
    host_work: Duration,
) -> Result<Vec<Vec<i32>>> {
    invoke(&Call::Generate {
        stream: host::export_stream(stream),
        decoder: host::export_decoder(decoder),
        prompts: prompts.to_vec(),
        steps,
        host_work,
    })
}
