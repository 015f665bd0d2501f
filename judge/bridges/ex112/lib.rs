//! Exercise 112's API as the checks see it in the judge's checker: the
//! types of `exercises/112-launch-bound`, a `profile` that runs the
//! learner's in the agent ([`judge_harness::bridge`]), and the learner's
//! `Profile::bound` and `crossover`, asked there too. The kernel the checks
//! hand `profile` (`launch`) stays here: each of its calls by the learner's
//! code comes back as a callback and runs on the judge's device.
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
