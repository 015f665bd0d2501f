//! Exercise 117's API as the checks see it in the judge's checker: the
//! [`Layer`] and [`Streams`] of `exercises/117-three-stage-pipeline` and a
//! [`run`] that runs the learner's in the agent ([`judge_harness::bridge`])
//! on the judge's three streams and pinned chunks and outputs, lent to it.
//!
//! Declared once in `api.rs` ([`judge_harness::api`]), which `serve.rs`,
//! the agent's side, includes too: compiled into the agent with the
//! learner's crate as `learner` and this one as `bridge`.

#[cfg(test)]
extern crate self as bridge;

#[cfg(test)]
#[path = "serve.rs"]
mod serve;
#[cfg(test)]
mod tests;

use judge_harness::checker_api as api;

include!("api.rs");
