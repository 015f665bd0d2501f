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
