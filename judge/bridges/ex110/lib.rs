//! Exercise 110's API as the checks see it in the judge's checker: a
//! [`CapturedStep`] that lives in the agent ([`judge_harness::bridge!`]),
//! made on the judge's stream and decoder, lent to it. Every copy, capture
//! and replay the learner's code queues runs on the judge's device, whose
//! trace the checks read.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
