//! Exercise 119's API as the checks see it in the judge's checker: the
//! types of `exercises/119-find-the-wait` and a [`waits`] that asks the
//! learner's in the agent ([`judge_harness::bridge!`]) about a trace of the
//! judge's, which travels as itself. The judge's steps, the truth of each
//! call and the grading stay here.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
