//! Exercise 118's API as the checks see it in the judge's checker: a
//! `submit` that runs the learner's in the agent ([`judge_harness::bridge`]).
//! The step the checks hand it stays here: each of its calls by the
//! learner's code comes back as a callback and runs on the judge's device.
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
