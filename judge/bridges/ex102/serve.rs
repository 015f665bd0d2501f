//! Exercise 102 in the agent: the checker's calls made with the learner's
//! crate (`learner`); each sampler lives here between calls, by handle, on
//! proxies of the judge's stream and decoder that live as long as the agent.

use judge_harness::agent_api as api;

include!("api.rs");
