//! Exercise 106's API as the checks see it in the judge's checker: the
//! [`Model`] of `exercises/106-copy-stream-prefetch` and a [`run`] that runs
//! the learner's in the agent ([`judge_harness::bridge!`]) on the judge's
//! streams and pinned batches, lent to it.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
