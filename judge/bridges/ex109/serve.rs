//! Exercise 109 in the agent: the checker's questions asked of the
//! learner's crate (`learner`), its `Pool` turned into the bridge's
//! (`bridge`).

use judge_harness::agent_api as api;

include!("api.rs");
