//! Exercise 117's API as the checks see it in the judge's checker: the
//! [`Layer`] and [`Streams`] of `exercises/117-three-stage-pipeline` and a
//! [`run`] that runs the learner's in the agent ([`judge_harness::bridge`])
//! on the judge's three streams and pinned chunks and outputs, lent to it.
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

/// The compute stage: what the compute stream does with each chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layer {
    /// The GPU time of the layer on one chunk.
    pub step: Duration,
}

/// The three streams of the pipeline, one per stage.
#[derive(Clone, Copy, Debug)]
pub struct Streams<'s> {
    /// Copies the chunks in, host to device.
    pub copy_in: &'s Stream,
    /// Runs the layer.
    pub compute: &'s Stream,
    /// Copies the results out, device to host.
    pub copy_out: &'s Stream,
}

/// A call of the learner's crate.
#[derive(Debug, Serialize, Deserialize)]
pub enum Call {
    /// `run(layer, chunks, outputs, streams)`: answered with
    /// `Result<Vec<Vec<f32>>>`.
    Run {
        /// The layer.
        layer: Layer,
        /// The chunks, in pinned memory the judge lends.
        chunks: Vec<PinnedRef>,
        /// The outputs, in pinned memory the judge lends.
        outputs: Vec<PinnedRef>,
        /// The copy-in, compute and copy-out streams, in that order.
        streams: [StreamRef; 3],
    },
}

/// The learner's `run`, in the agent, on the judge's streams and buffers.
pub fn run(
    layer: &Layer,
    chunks: &[PinnedBuffer<f32>],
    outputs: &[PinnedBuffer<f32>],
    streams: Streams<'_>,
) -> Result<Vec<Vec<f32>>> {
    invoke(&Call::Run {
        layer: *layer,
        chunks: chunks.iter().map(host::export_pinned).collect(),
        outputs: outputs.iter().map(host::export_pinned).collect(),
        streams: [
            host::export_stream(streams.copy_in),
            host::export_stream(streams.compute),
            host::export_stream(streams.copy_out),
        ],
    })
}
