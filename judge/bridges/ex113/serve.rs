//! Exercise 113 in the agent: its API (`api.rs`) served with the learner's
//! crate (`learner`), on proxies of the judge's stream and decoder; each
//! step lives here between calls, by handle.

use judge_harness::agent_api as api;

include!("api.rs");
