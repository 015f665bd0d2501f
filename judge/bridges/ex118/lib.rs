//! Exercise 118's API as the checks see it in the judge's checker: a
//! `submit` that runs the learner's in the agent ([`judge_harness::bridge`]).
//! The step the checks hand it stays here: each of its calls by the
//! learner's code comes back as a callback and runs on the judge's device.
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

use gpu::remote::{StreamRef, host};
use gpu::{GpuError, Result, Stream};
use judge_harness::bridge::{decode, encode, invoke_with};
use serde::{Deserialize, Serialize};

/// A call of the learner's crate.
#[derive(Debug, Serialize, Deserialize)]
pub enum Call {
    /// `submit(stream, steps, depth, step)`: answered with `Result<()>`.
    Submit {
        /// The stream to submit on.
        stream: StreamRef,
        /// How many steps.
        steps: usize,
        /// How many steps may be in flight.
        depth: usize,
    },
}

/// A callback of the learner's code.
#[derive(Debug, Serialize, Deserialize)]
pub enum Callback {
    /// Step `k` on `stream`: answered with `Result<()>`.
    Step {
        /// The stream the learner's code passed.
        stream: StreamRef,
        /// The step's index.
        k: usize,
    },
}

/// The learner's `submit`, run in the agent; each call of `step` it makes
/// runs here, on the stream it names.
pub fn submit(
    stream: &Stream,
    steps: usize,
    depth: usize,
    step: &mut dyn FnMut(&Stream, usize) -> Result<()>,
) -> Result<()> {
    let call = Call::Submit {
        stream: host::export_stream(stream),
        steps,
        depth,
    };
    invoke_with(&call, &mut |request| {
        let Callback::Step { stream, k } = decode(request);
        let result = match host::stream(stream) {
            Some(stream) => step(&stream, k),
            None => Err(GpuError::ForeignHandle {
                op: "step",
                site: gpu::CallSite::internal("the decode step"),
            }),
        };
        encode(&result)
    })
}
