// Exercise 111's API, declared once: `lib.rs` includes it as the checker's
// end (`judge_harness::checker_api!`), `serve.rs` as the agent's
// (`judge_harness::agent_api!`).

#[allow(unused_imports)]
use gpu::{PinnedBuffer, Result, Stream, View};

api! {
    fns {
        /// The learner's `handoff`, in the agent, on the judge's streams,
        /// pinned buffer and device buffers.
        pub fn handoff(
            producer: &Stream,
            consumer: &Stream,
            host: &PinnedBuffer<f32>,
            x: View<f32>,
            y: View<f32>,
        ) -> Result<()>;
    }
}
