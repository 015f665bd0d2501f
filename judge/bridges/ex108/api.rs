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
