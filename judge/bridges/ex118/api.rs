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
