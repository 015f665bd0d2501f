//! Exercise 117 in the agent: the checker's calls made with the learner's
//! crate (`learner`), on proxies of the judge's streams and pinned buffers.

use judge_harness::agent_api as api;

include!("api.rs");
