//! Exercise 114 in the agent: the checker's calls made with the learner's
//! crate (`learner`), on proxies of the judge's streams. Each allocator and
//! each block it hands out lives here between calls, by handle.

use judge_harness::agent_api as api;

include!("api.rs");
