//! Exercise 117's API as the checks see it in the judge's checker: the
//! [`Layer`] and [`Streams`] of `exercises/117-three-stage-pipeline` and a
//! [`run`] that runs the learner's in the agent ([`judge_harness::bridge!`])
//! on the judge's three streams and pinned chunks and outputs, lent to it.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
