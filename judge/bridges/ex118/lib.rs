//! Exercise 118's API as the checks see it in the judge's checker: a
//! `submit` that runs the learner's in the agent ([`judge_harness::bridge!`]).
//! The step the checks hand it stays here: each of its calls by the
//! learner's code comes back as a callback and runs on the judge's device.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
