//! Exercise 109's API as the checks see it in the judge's checker: the
//! `Pool` of `exercises/109-rounding-and-pools` and its three functions,
//! each asking the learner's in the agent ([`judge_harness::bridge`]). The
//! judge's own rules, its table of sizes and the grading stay here.
//!
//! Declared once in `api.rs` ([`judge_harness::api`]), which `serve.rs`,
//! the agent's side, includes too: compiled into the agent with the
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

use judge_harness::checker_api as api;

include!("api.rs");
