//! Exercise 108's API as the checks see it in the judge's checker: a
//! [`generate`] that runs the learner's in the agent
//! ([`judge_harness::bridge!`]) on the judge's stream and decoder, lent to it.
//! Every step the learner's code queues runs on the judge's device, whose
//! trace the checks read.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
