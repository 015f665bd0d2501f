api! {
    types {
        /// How the decoding runs.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct Config {
            /// Requests in the batch.
            pub batch: usize,
            /// The most steps the decoding will be asked to run.
            pub max_steps: usize,
            /// The end-of-sequence token.
            pub eos: i32,
        }
        /// What a run produced.
        #[derive(Clone, Debug, PartialEq)]
        pub struct Report {
            /// For each request, its predictions in step order, up to its first `eos`.
            pub outputs: Vec<Vec<i32>>,
            /// How many requests finished.
            pub finished: usize,
            /// Each step's GPU time in milliseconds.
            pub step_ms: Vec<f64>,
        }
    }
    objects {
        /// The learner's decoding, which lives in the agent.
        pub struct Decoding<'d> {
            /// The learner's `Decoding::new`, in the agent, on the judge's
            /// decoder and stream.
            pub fn new(decoder: &Decoder, stream: &Stream, config: Config) -> Result<Self>;
            /// The learner's `Decoding::step`, in the agent.
            pub fn step(&mut self, tokens: &[i32]) -> Result<()>;
            /// The learner's `Decoding::finish`, in the agent.
            pub fn finish(self) -> Result<Report>;
        }
    }
}
