//! Exercise 114's API as the checks see it in the judge's checker: a
//! [`StreamAllocator`] that stands for the learner's, which lives in the
//! agent ([`judge_harness::bridge!`]) with every block it hands out, over
//! proxies of the judge's streams. Every segment, event and query the
//! learner's allocator asks for is made on the judge's device, whose trace
//! the checks read.

judge_harness::bridge!(api: "api.rs", tests: "tests.rs");
