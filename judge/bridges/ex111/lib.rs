//! Exercise 111's API as the checks see it in the judge's checker: a
//! [`handoff`] that runs the learner's in the agent
//! ([`judge_harness::bridge`]) on the judge's streams and pinned batch,
//! lent to it. Every copy, record, wait and launch the learner's code
//! queues runs on the judge's device, whose trace the checks read.
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
