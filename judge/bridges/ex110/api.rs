api! {
    objects {
        /// The learner's captured step, which lives in the agent.
        pub struct CapturedStep {
            /// The learner's `CapturedStep::new`, in the agent, on the
            /// judge's stream and decoder, for batches of `batch` rows.
            pub fn new(stream: &Stream, decoder: &Decoder, batch: usize) -> Result<Self>;
            /// The learner's `CapturedStep::step`, in the agent: `tokens` and
            /// `next` are views of the judge's device.
            pub fn step(&mut self, tokens: View<i32>, next: View<i32>) -> Result<()>;
        }
    }
}
