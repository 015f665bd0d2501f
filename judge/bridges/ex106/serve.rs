//! Exercise 106 in the agent: the checker's calls made with the learner's
//! crate (`learner`), on proxies of the judge's streams and batches.

use judge_harness::agent_api as api;

include!("api.rs");
