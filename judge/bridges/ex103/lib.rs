//! Exercise 103's API as the checks see it in the judge's checker: the
//! constants and the given [`Model`] of `exercises/103-graph-static-buffers`
//! (the judge's own copy: its reference is the truth, whatever the learner
//! did to theirs), and a [`Runner`] and a [`bucket_for`] that call the
//! learner's in the agent ([`judge_harness::bridge`]).
//!
//! Declared once in `api.rs` ([`judge_harness::api`]), which `serve.rs`,
//! the agent's side, includes too: compiled into the agent with the
//! learner's crate as `learner` and this one as `bridge`.

#[cfg(test)]
extern crate self as bridge;

mod error;
mod model;
#[cfg(test)]
#[path = "serve.rs"]
mod serve;
#[cfg(test)]
mod tests;

pub use model::{LAYERS, Model, WIDTH};

use judge_harness::checker_api as api;

include!("api.rs");

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
