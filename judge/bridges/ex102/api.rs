api! {
    types {
        /// One request: the token it starts from and how many tokens it may generate.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Request {
            /// The last token of the prompt: step 0 decodes from it.
            pub prompt: i32,
            /// The most tokens to generate.
            pub max_new_tokens: usize,
        }
        /// A batch of requests decoded together, and the end-of-sequence token.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct Batch {
            /// The requests, one row of the decoder's batch each.
            pub requests: Vec<Request>,
            /// The end-of-sequence token.
            pub eos: i32,
        }
    }
    fns {
        /// The learner's `generate`, in the agent, on the judge's stream and
        /// decoder.
        pub fn generate(
            stream: &Stream,
            decoder: &Decoder,
            batch: &Batch,
            host_work: Duration,
        ) -> Result<Vec<Vec<i32>>>;
    }
    objects {
        /// The learner's sampler, which lives in the agent.
        pub struct Sampler<'a> {
            /// The learner's `Sampler::new`, in the agent, on the judge's
            /// stream and decoder.
            pub fn new(stream: &Stream, decoder: &Decoder, batch: &Batch) -> Result<Self>;
            /// The learner's `Sampler::submit`, in the agent.
            pub fn submit(&mut self) -> Result<()>;
            /// The learner's `Sampler::process`, in the agent.
            pub fn process(&mut self) -> Result<()>;
            /// The learner's `Sampler::is_finished`, in the agent.
            pub fn is_finished(&self) -> bool;
            /// The learner's `Sampler::into_outputs`, in the agent.
            pub fn into_outputs(self) -> Vec<Vec<i32>>;
        }
    }
}
