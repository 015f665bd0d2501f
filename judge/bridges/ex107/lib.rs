//! Exercise 107's API as the checks see it in the judge's checker: the
//! types of `exercises/107-which-calls-wait` and a [`predict`] that asks the
//! learner's in the agent ([`judge_harness::bridge!`]). The judge's program,
//! its measurements and the grading stay here.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
