//! Exercise 112 in the agent: the checker's calls made with the learner's
//! crate (`learner`), its types turned into the bridge's (`bridge`).

use judge_harness::agent_api as api;

include!("api.rs");
