//! Exercise 115's API as the checks see it in the judge's checker: a
//! [`generate`] that runs the learner's in the agent
//! ([`judge_harness::bridge!`]) on the judge's stream and decoder, lent to it.
//! Every step, copy, event and pinned read the learner's code makes runs on
//! the judge's device, whose trace and race checker the checks read.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
