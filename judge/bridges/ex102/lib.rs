//! Exercise 102's API as the checks see it in the judge's checker: the
//! types of `exercises/102-overlap-sampler`, and a [`generate`] and a
//! [`Sampler`] that run the learner's in the agent
//! ([`judge_harness::bridge!`]) on the judge's stream and decoder, lent to it.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
