//! Exercise 104's API as the checks see it in the judge's checker: the
//! types of `exercises/104-sync-elimination` and a [`Server`] that stands
//! for the learner's, which lives in the agent ([`judge_harness::bridge`])
//! and runs on the judge's streams and decoder, lent to it.
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
