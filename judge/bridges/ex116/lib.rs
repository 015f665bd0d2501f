//! Exercise 116's API as the checks see it in the judge's checker: the
//! types of `exercises/116-step-without-syncs` and a [`Decoding`] that
//! stands for the learner's, which lives in the agent
//! ([`judge_harness::bridge!`]) and runs on the judge's stream and decoder,
//! lent to it. Every allocation, copy, launch and wait the learner's code
//! makes runs on the judge's device, whose trace the checks read.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
