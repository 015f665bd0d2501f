//! Exercise 107 in the agent: the checker's questions asked of the
//! learner's crate (`learner`), its types turned into the bridge's
//! (`bridge`) and back.

use judge_harness::agent_api as api;

include!("api.rs");
