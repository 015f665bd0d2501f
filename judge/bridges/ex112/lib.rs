//! Exercise 112's API as the checks see it in the judge's checker: the
//! types of `exercises/112-launch-bound`, a `profile` that runs the
//! learner's in the agent ([`judge_harness::bridge!`]), and the learner's
//! `Profile::bound` and `crossover`, asked there too. The kernel the checks
//! hand `profile` (`launch`) stays here: each of its calls by the learner's
//! code comes back as a callback and runs on the judge's device.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
