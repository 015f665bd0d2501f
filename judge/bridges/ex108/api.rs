// Exercise 108's API, declared once: `lib.rs` includes it as the checker's
// end (`judge_harness::checker_api!`), `serve.rs` as the agent's
// (`judge_harness::agent_api!`).

#[allow(unused_imports)]
use gpu::{Decoder, Result, Stream};

api! {
    fns {
        /// The learner's `generate`, in the agent.
        pub fn generate(
            stream: &Stream,
            decoder: &Decoder,
            prompts: &[i32],
            steps: usize,
        ) -> Result<Vec<Vec<i32>>>;
    }
}
