//! Exercise 105's API as the checks see it in the judge's checker: the
//! types of `exercises/105-time-it` and a `measure` that runs the learner's
//! in the agent ([`judge_harness::bridge`]). The workload the checks hand
//! it (`run`) stays here: each of its calls by the learner's code comes
//! back as a callback and runs on the judge's device.
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

/// How to measure: runs to throw away first, then runs to time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// Untimed runs before the first timed one.
    pub warmup: usize,
    /// Timed runs, one sample each.
    pub reps: usize,
}

/// The work of one run: a product of an `m × k` matrix and a `k × n` one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Matmul {
    /// Rows of the product.
    pub m: u64,
    /// Columns of the product.
    pub n: u64,
    /// The length of each dot product.
    pub k: u64,
}

/// What a measurement found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// The GPU time of each timed run in milliseconds, in the order they ran.
    pub samples_ms: Vec<f64>,
    /// The median of `samples_ms`.
    pub median_ms: f64,
    /// Floating-point operations per second at the median time.
    pub flops_per_s: f64,
}

/// A call of the learner's crate.
#[derive(Debug, Serialize, Deserialize)]
pub enum Call {
    /// `measure(stream, plan, work, run)`: answered with `Result<Timing>`.
    Measure {
        /// The stream to measure on.
        stream: StreamRef,
        /// The plan.
        plan: Plan,
        /// The work of a run.
        work: Matmul,
    },
}

/// A callback of the learner's code.
#[derive(Debug, Serialize, Deserialize)]
pub enum Callback {
    /// One run of the workload on `stream`: answered with `Result<()>`.
    Run {
        /// The stream the learner's code passed.
        stream: StreamRef,
    },
}

/// The learner's `measure`, run in the agent; each run of `run` it makes
/// runs here, on the stream it names.
pub fn measure(
    stream: &Stream,
    plan: Plan,
    work: Matmul,
    run: &mut dyn FnMut(&Stream) -> Result<()>,
) -> Result<Timing> {
    let call = Call::Measure {
        stream: host::export_stream(stream),
        plan,
        work,
    };
    invoke_with(&call, &mut |request| {
        let Callback::Run { stream } = decode(request);
        let result = match host::stream(stream) {
            Some(stream) => run(&stream),
            None => Err(GpuError::ForeignHandle {
                op: "run",
                site: gpu::CallSite::internal("the workload"),
            }),
        };
        encode(&result)
    })
}
