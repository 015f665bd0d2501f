//! Exercise 116 in the agent: the checker's calls made with the learner's
//! crate (`learner`); each decoding lives here between calls, by handle.

use judge_harness::agent_api as api;

include!("api.rs");
