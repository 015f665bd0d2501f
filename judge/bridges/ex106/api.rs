// Exercise 106's API, declared once: `lib.rs` includes it as the checker's
// end (`judge_harness::checker_api!`), `serve.rs` as the agent's
// (`judge_harness::agent_api!`).

#[allow(unused_imports)]
use gpu::{PinnedBuffer, Result, Stream};
#[allow(unused_imports)]
use std::time::Duration;

api! {
    types {
        /// The model: what the compute stream does with each batch.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Model {
            /// The GPU time of one step.
            pub step: Duration,
        }
    }
    fns {
        /// The learner's `run`, in the agent, on the judge's streams and
        /// pinned batches.
        pub fn run(
            model: &Model,
            batches: &[PinnedBuffer<f32>],
            copy: &Stream,
            compute: &Stream,
        ) -> Result<Vec<f32>>;
    }
}
