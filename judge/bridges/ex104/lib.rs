//! Exercise 104's API as the checks see it in the judge's checker: the
//! types of `exercises/104-sync-elimination` and a [`Server`] that stands
//! for the learner's, which lives in the agent ([`judge_harness::bridge!`])
//! and runs on the judge's streams and decoder, lent to it.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
