//! Exercise 108 in the agent: the checker's calls made with the learner's
//! crate (`learner`), on proxies of the judge's stream and decoder.

use judge_harness::agent_api as api;

include!("api.rs");
