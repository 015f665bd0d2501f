//! Exercise 106's API as the checks see it in the judge's checker: the
//! [`Model`] of `exercises/106-copy-stream-prefetch` and a [`run`] that runs
//! the learner's in the agent ([`judge_harness::bridge`]) on the judge's
//! streams and pinned batches, lent to it.
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

use gpu::remote::{PinnedRef, StreamRef, host};
use gpu::{PinnedBuffer, Result, Stream};
use judge_harness::bridge::invoke;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The model: what the compute stream does with each batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Model {
    /// The GPU time of one step.
    pub step: Duration,
}

/// A call of the learner's crate.
#[derive(Debug, Serialize, Deserialize)]
pub enum Call {
    /// `run(model, batches, copy, compute)`: answered with `Result<Vec<f32>>`.
    Run {
        /// The model.
        model: Model,
        /// The batches, in pinned memory the judge lends.
        batches: Vec<PinnedRef>,
        /// The copy stream.
        copy: StreamRef,
        /// The compute stream.
        compute: StreamRef,
    },
}

/// The learner's `run`, in the agent, on the judge's streams and batches.
pub fn run(
    model: &Model,
    batches: &[PinnedBuffer<f32>],
    copy: &Stream,
    compute: &Stream,
) -> Result<Vec<f32>> {
    invoke(&Call::Run {
        model: *model,
        batches: batches.iter().map(host::export_pinned).collect(),
        copy: host::export_stream(copy),
        compute: host::export_stream(compute),
    })
}
