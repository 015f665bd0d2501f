//! Exercise 102's API as the checks see it in the judge's checker: the
//! types of `exercises/102-overlap-sampler`, and a [`generate`] and a
//! [`Sampler`] that run the learner's in the agent
//! ([`judge_harness::bridge`]) on the judge's stream and decoder, lent to it.
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
