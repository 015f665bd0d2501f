//! Exercise 121's API as the checks see it in the judge's checker: the
//! types of `exercises/121-find-the-regression`, a [`diagnose`] that asks
//! the learner's in the agent ([`judge_harness::bridge!`]) about two traces
//! of the judge's, which travel as themselves, and an [`Engine`] that
//! stands for the learner's, which lives in the agent and runs its steps on
//! the judge's stream and pinned batches. The judge's steps, the truth of
//! each pair and the grading stay here.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
