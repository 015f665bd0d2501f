//! Exercise 111 in the agent: the checker's call made with the learner's
//! crate (`learner`), on proxies of the judge's streams and batch.

use judge_harness::agent_api as api;

include!("api.rs");
