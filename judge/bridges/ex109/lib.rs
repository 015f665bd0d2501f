//! Exercise 109's API as the checks see it in the judge's checker: the
//! `Pool` of `exercises/109-rounding-and-pools` and its three functions,
//! each asking the learner's in the agent ([`judge_harness::bridge!`]). The
//! judge's own rules, its table of sizes and the grading stay here.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
