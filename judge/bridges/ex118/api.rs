// Exercise 118's API, declared once: `lib.rs` includes it as the checker's
// end (`judge_harness::checker_api!`), `serve.rs` as the agent's
// (`judge_harness::agent_api!`).

#[allow(unused_imports)]
use gpu::{Result, Stream};

api! {
    fns {
        /// The learner's `submit`, in the agent, on the judge's stream:
        /// `step` is the check's, called back for each step.
        pub fn submit(
            stream: &Stream,
            steps: usize,
            depth: usize,
            #[callback] step: FnMut(on: &Stream, k: usize) -> Result<()>,
        ) -> Result<()>;
    }
}
