//! Exercise 118 in the agent: the checker's calls made with the learner's
//! crate (`learner`).

use judge_harness::agent_api as api;

include!("api.rs");
