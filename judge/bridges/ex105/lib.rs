//! Exercise 105's API as the checks see it in the judge's checker: the
//! types of `exercises/105-time-it` and a `measure` that runs the learner's
//! in the agent ([`judge_harness::bridge!`]). The workload the checks hand
//! it (`run`) stays here: each of its calls by the learner's code comes
//! back as a callback and runs on the judge's device.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
