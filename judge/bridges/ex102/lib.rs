//! Exercise 102's API as the checks see it in the judge's checker: the
//! types of `exercises/102-overlap-sampler`, and a [`generate`] and a
//! [`Sampler`] that run the learner's in the agent
//! ([`judge_harness::bridge`]) on the judge's stream and decoder, lent to it.
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
use std::time::Duration;

/// One request: the token it starts from and how many tokens it may generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// The last token of the prompt: step 0 decodes from it.
    pub prompt: i32,
    /// The most tokens to generate.
    pub max_new_tokens: usize,
}

/// A batch of requests decoded together, and the end-of-sequence token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Batch {
    /// The requests, one row of the decoder's batch each.
    pub requests: Vec<Request>,
    /// The end-of-sequence token.
    pub eos: i32,
}

/// A call of the learner's crate.
#[derive(Debug, Serialize, Deserialize)]
pub enum Call {
    /// `generate(stream, decoder, batch, host_work)`: answered with
    /// `Result<Vec<Vec<i32>>>`.
    Generate {
        /// The stream.
        stream: StreamRef,
        /// The decoder, lent.
        decoder: DecoderRef,
        /// The batch.
        batch: Batch,
        /// The scheduler's CPU time per step.
        host_work: Duration,
    },
    /// `Sampler::new(stream, decoder, batch)`: answered with `Result<u64>`,
    /// the sampler's handle in the agent.
    NewSampler {
        /// The stream.
        stream: StreamRef,
        /// The decoder, lent.
        decoder: DecoderRef,
        /// The batch.
        batch: Batch,
    },
    /// `sampler.submit()`: answered with `Option<Result<()>>` (`None`: no
    /// such sampler, an earlier call of it panicked).
    Submit {
        /// The sampler.
        sampler: u64,
    },
    /// `sampler.process()`: answered with `Option<Result<()>>`.
    Process {
        /// The sampler.
        sampler: u64,
    },
    /// `sampler.is_finished()`: answered with `Option<bool>`.
    IsFinished {
        /// The sampler.
        sampler: u64,
    },
    /// `sampler.into_outputs()`: answered with `Option<Vec<Vec<i32>>>`.
    IntoOutputs {
        /// The sampler.
        sampler: u64,
    },
    /// The drop of a sampler: answered with `()`.
    Drop {
        /// The sampler.
        sampler: u64,
    },
}

/// The learner's `generate`, in the agent.
pub fn generate(
    stream: &Stream,
    decoder: &Decoder,
    batch: &Batch,
    host_work: Duration,
) -> Result<Vec<Vec<i32>>> {
    invoke(&Call::Generate {
        stream: host::export_stream(stream),
        decoder: host::export_decoder(decoder),
        batch: batch.clone(),
        host_work,
    })
}

/// The learner's sampler, which lives in the agent.
#[derive(Debug)]
pub struct Sampler<'a> {
    handle: u64,
    consumed: bool,
    _borrows: PhantomData<(&'a Stream, &'a Decoder)>,
}

/// A sampler's answer, or the end of the check when the sampler is gone.
fn present<T>(answer: Option<T>) -> T {
    answer.unwrap_or_else(|| {
        panic!(
            "the learner's `Sampler` is gone: an earlier call of it panicked in the learner's code"
        )
    })
}

impl<'a> Sampler<'a> {
    /// The learner's `Sampler::new`, in the agent.
    pub fn new(stream: &'a Stream, decoder: &'a Decoder, batch: &Batch) -> Result<Self> {
        let handle: Result<u64> = invoke(&Call::NewSampler {
            stream: host::export_stream(stream),
            decoder: host::export_decoder(decoder),
            batch: batch.clone(),
        });
        Ok(Self {
            handle: handle?,
            consumed: false,
            _borrows: PhantomData,
        })
    }

    /// The learner's `Sampler::submit`.
    pub fn submit(&mut self) -> Result<()> {
        present(invoke(&Call::Submit {
            sampler: self.handle,
        }))
    }

    /// The learner's `Sampler::process`.
    pub fn process(&mut self) -> Result<()> {
        present(invoke(&Call::Process {
            sampler: self.handle,
        }))
    }

    /// The learner's `Sampler::is_finished`.
    pub fn is_finished(&self) -> bool {
        present(invoke(&Call::IsFinished {
            sampler: self.handle,
        }))
    }

    /// The learner's `Sampler::into_outputs`.
    pub fn into_outputs(mut self) -> Vec<Vec<i32>> {
        self.consumed = true;
        present(invoke(&Call::IntoOutputs {
            sampler: self.handle,
        }))
    }
}

impl Drop for Sampler<'_> {
    fn drop(&mut self) {
        if !self.consumed && !std::thread::panicking() {
            let () = invoke(&Call::Drop {
                sampler: self.handle,
            });
        }
    }
}
