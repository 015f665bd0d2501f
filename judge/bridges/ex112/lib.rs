//! Exercise 112's API as the checks see it in the judge's checker: the
//! types of `exercises/112-launch-bound`, a `profile` that runs the
//! learner's in the agent ([`judge_harness::bridge`]), and the learner's
//! `Profile::bound` and `crossover`, asked there too. The kernel the checks
//! hand `profile` (`launch`) stays here: each of its calls by the learner's
//! code comes back as a callback and runs on the judge's device.
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
use judge_harness::bridge::{decode, encode, invoke, invoke_with};
use serde::{Deserialize, Serialize};

/// How to measure one size: launches to throw away first, then launches to
/// time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// Untimed launches before the timed ones.
    pub warmup: usize,
    /// Timed launches.
    pub launches: usize,
}

/// What one size of kernel costs each processor, per launch.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// CPU time of one launch, in microseconds.
    pub cpu_us: f64,
    /// GPU time of one kernel, in microseconds.
    pub gpu_us: f64,
}

/// Which processor sets the pace of a loop of launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Bound {
    /// The CPU.
    Launch,
    /// The GPU.
    Compute,
}

impl Profile {
    /// The learner's `Profile::bound`, asked in the agent.
    pub fn bound(&self) -> Bound {
        invoke(&Call::Bound(*self))
    }
}

/// A call of the learner's crate.
#[derive(Debug, Serialize, Deserialize)]
pub enum Call {
    /// `profile(stream, plan, launch)`: answered with `Result<Profile>`.
    Profile {
        /// The stream to launch on.
        stream: StreamRef,
        /// The plan.
        plan: Plan,
    },
    /// `profile.bound()`: answered with a `Bound`.
    Bound(Profile),
    /// `crossover(profiles)`: answered with an `Option<usize>`.
    Crossover(Vec<Profile>),
}

/// A callback of the learner's code.
#[derive(Debug, Serialize, Deserialize)]
pub enum Callback {
    /// One launch of the kernel on `stream`: answered with `Result<()>`.
    Launch {
        /// The stream the learner's code passed.
        stream: StreamRef,
    },
}

/// The learner's `profile`, run in the agent; each launch it makes runs
/// here, on the stream it names.
pub fn profile(
    stream: &Stream,
    plan: Plan,
    launch: &mut dyn FnMut(&Stream) -> Result<()>,
) -> Result<Profile> {
    let call = Call::Profile {
        stream: host::export_stream(stream),
        plan,
    };
    invoke_with(&call, &mut |request| {
        let Callback::Launch { stream } = decode(request);
        let result = match host::stream(stream) {
            Some(stream) => launch(&stream),
            None => Err(GpuError::ForeignHandle {
                op: "launch",
                site: gpu::CallSite::internal("the kernel"),
            }),
        };
        encode(&result)
    })
}

/// The learner's `crossover`, asked in the agent.
pub fn crossover(profiles: &[Profile]) -> Option<usize> {
    invoke(&Call::Crossover(profiles.to_vec()))
}
