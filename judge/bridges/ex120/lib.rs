//! Exercise 120's API as the checks see it in the judge's checker: the
//! type of `exercises/120-attribute-ranges` and an [`attribute`] that asks
//! the learner's in the agent ([`judge_harness::bridge!`]) about a trace of
//! the judge's, ranges and all, which travels as itself. The judge's steps,
//! the truth of each range and the grading stay here.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
