//! Exercise 111's API as the checks see it in the judge's checker: a
//! [`handoff`] that runs the learner's in the agent
//! ([`judge_harness::bridge`]) on the judge's streams and pinned batch,
//! lent to it. Every copy, record, wait and launch the learner's code
//! queues runs on the judge's device, whose trace the checks read.
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
use gpu::{PinnedBuffer, Result, Stream, View};
use judge_harness::bridge::invoke;
use serde::{Deserialize, Serialize};

/// A call of the learner's crate.
#[derive(Debug, Serialize, Deserialize)]
pub enum Call {
    /// `handoff(producer, consumer, host, x, y)`: answered with
    /// `Result<()>`.
    Handoff {
        /// The stream that uploads.
        producer: StreamRef,
        /// The stream that runs the layer.
        consumer: StreamRef,
        /// The pinned batch, lent.
        host: PinnedRef,
        /// Where the batch goes.
        x: View<f32>,
        /// Where the layer writes.
        y: View<f32>,
    },
}

/// The learner's `handoff`, in the agent, on the judge's streams and batch.
pub fn handoff(
    producer: &Stream,
    consumer: &Stream,
    host: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    invoke(&Call::Handoff {
        producer: host::export_stream(producer),
        consumer: host::export_stream(consumer),
        host: host::export_pinned(host),
        x,
        y,
    })
}
