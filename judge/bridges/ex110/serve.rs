//! Exercise 110 in the agent: the checker's calls made with the learner's
//! crate (`learner`), on proxies of the judge's stream and decoder; each
//! captured step lives here between calls, by handle.

use judge_harness::agent_api as api;

include!("api.rs");
