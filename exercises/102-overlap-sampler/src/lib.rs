//! The overlap sampler: a decode loop that keeps the GPU busy while the CPU
//! works.
//!
//! A batch of requests is decoded one step at a time. Each step runs the
//! decoder on the GPU ([`gpu::Stream::decode_step`]: the next token of every
//! request), and the CPU has work of its own per step: scheduling and
//! bookkeeping ([`gpu::Device::host_work`]), then the results: append each
//! request's token, and finish the request at the end-of-sequence token (which
//! is kept) or at its `max_new_tokens`.
//!
//! [`generate`] is the loop; [`Sampler`] (in `sampler.rs`) launches a step
//! ([`Sampler::submit`]) and processes the results of the oldest step not
//! processed yet ([`Sampler::process`]). As given, the loop is correct and
//! slow: each step copies its tokens into a `Vec` (the CPU waits for the GPU),
//! then the CPU works while the GPU waits for the next launch, so a step
//! costs about GPU + CPU. Make it overlap (see `README.md`): a step should
//! cost about max(GPU, CPU).

mod sampler;

pub use sampler::Sampler;

use gpu::{Decoder, Result, Stream};
use std::time::Duration;

/// One request: the token it starts from and how many tokens it may generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// The last token of the prompt: step 0 decodes from it.
    pub prompt: i32,
    /// The most tokens to generate; the request finishes when it has this many.
    pub max_new_tokens: usize,
}

/// A batch of requests decoded together, and the end-of-sequence token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batch {
    /// The requests, one row of the decoder's batch each.
    pub requests: Vec<Request>,
    /// The end-of-sequence token: a request that generates it finishes, with
    /// the token as its last output.
    pub eos: i32,
}

// ANCHOR: generate
/// Decodes `batch` on `stream` until every request has finished; returns
/// each request's generated tokens. Each step costs the CPU `host_work` (the
/// scheduler's work for a step) besides processing the results.
pub fn generate(
    stream: &Stream,
    decoder: &Decoder,
    batch: &Batch,
    host_work: Duration,
) -> Result<Vec<Vec<i32>>> {
    let mut sampler = Sampler::new(stream, decoder, batch)?;
    // TODO: overlap. Submit step N+1 before processing step N, so that the
    // CPU's work runs while the GPU decodes.
    while !sampler.is_finished() {
        stream.device().host_work(host_work); // schedule the step
        sampler.submit()?; // launch it and wait for its tokens
        sampler.process()?; // append them
    }
    Ok(sampler.into_outputs())
}
// ANCHOR_END: generate
