//! Exercise 111's API as the checks see it in the judge's checker: a
//! [`handoff`] that runs the learner's in the agent
//! ([`judge_harness::bridge!`]) on the judge's streams and pinned batch,
//! lent to it. Every copy, record, wait and launch the learner's code
//! queues runs on the judge's device, whose trace the checks read.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
