//! Exercise 103's API as the checks see it in the judge's checker: the
//! constants and the given [`Model`] of `exercises/103-graph-static-buffers`
//! (the judge's own copy, the reference solution's `src/model.rs`: its
//! reference is the truth, whatever the learner did to theirs), and a
//! [`Runner`] and a [`bucket_for`] that call the learner's in the agent
//! ([`judge_harness::bridge`](mod@judge_harness::bridge)).
//!
//! Declared once in `api.rs`; the agent's end (`serve.rs`) adds how the
//! model travels ([`judge_harness::bridge!`]).

judge_harness::bridge!(api: "api.rs", agent: "serve.rs", tests: "tests.rs");

#[path = "../../../solutions/103-graph-static-buffers/src/model.rs"]
mod model;

pub use model::{LAYERS, Model, WIDTH};

/// The batch sizes a graph is captured for.
pub const BUCKETS: [usize; 5] = [1, 2, 4, 8, 16];
/// The largest batch a step takes: the largest bucket.
pub const MAX_ROWS: usize = 16;

/// The model travels as its layers: the agent checks the learner's
/// `Model::new()` against them.
impl judge_harness::api::Wire for Model {
    type Out<'a> = &'a [(f32, f32)];
    fn wire(&self) -> &[(f32, f32)] {
        self.layers()
    }
}

/// The learner's message (the checks read it).
impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_string())
    }
}

impl std::error::Error for Error {}
