//! Exercise 109's API as the checks see it in the judge's checker: the
//! `Pool` of `exercises/109-rounding-and-pools` and its three functions,
//! each asking the learner's in the agent ([`judge_harness::bridge`]). The
//! judge's own rules, its table of sizes and the grading stay here.
//!
//! `serve.rs` is the agent's side: compiled into the agent with the
//! learner's crate as `learner` and this one as `bridge`. The constants are
//! not bridged: the judge keeps its own, so a learner who changes one is
//! graded against PyTorch's.

#[cfg(test)]
extern crate self as bridge;

#[cfg(test)]
#[path = "serve.rs"]
mod serve;
#[cfg(test)]
mod tests;

use judge_harness::bridge::invoke;
use serde::{Deserialize, Serialize};

/// The two pools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Pool {
    /// Rounded requests up to 1 MiB.
    Small,
    /// Rounded requests over 1 MiB.
    Large,
}

/// A call of the learner's crate.
#[derive(Debug, Serialize, Deserialize)]
pub enum Request {
    /// `round_size(size)`: answered with a `usize`.
    RoundSize(usize),
    /// `pool_for(rounded)`: answered with a `Pool`.
    PoolFor(usize),
    /// `segment_size(rounded)`: answered with a `usize`.
    SegmentSize(usize),
}

/// The learner's `round_size`, asked in the agent.
pub fn round_size(size: usize) -> usize {
    invoke(&Request::RoundSize(size))
}

/// The learner's `pool_for`, asked in the agent.
pub fn pool_for(rounded: usize) -> Pool {
    invoke(&Request::PoolFor(rounded))
}

/// The learner's `segment_size`, asked in the agent.
pub fn segment_size(rounded: usize) -> usize {
    invoke(&Request::SegmentSize(rounded))
}
