//! Exercise 114's API as the checks see it in the judge's checker: a
//! [`StreamAllocator`] that stands for the learner's, which lives in the
//! agent ([`judge_harness::bridge`]) with every block it hands out, over
//! proxies of the judge's streams. Every segment, event and query the
//! learner's allocator asks for is made on the judge's device, whose trace
//! the checks read.
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
