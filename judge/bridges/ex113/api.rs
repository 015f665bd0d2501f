api! {
    types {
        /// Why a step failed: the learner's error, as it travels from the agent.
        #[derive(Debug)]
        pub enum Error {
            /// A GPU call failed.
            Gpu(GpuError),
            /// The batch has more rows than the largest bucket.
            TooManyRows {
                /// The rows of the batch.
                rows: usize,
                /// The largest bucket.
                max: usize,
            },
        }
    }
    fns {
        /// The learner's `bucket_for`, in the agent.
        pub fn bucket_for(rows: usize) -> Option<usize>;
    }
    impls {
        impl Error {
            /// The learner's message for the error (its `Display`, which the checks read).
            #[allow(clippy::inherent_to_string_shadow_display)]
            pub fn to_string(&self) -> String;
        }
    }
    objects {
        /// The learner's bucketed step, which lives in the agent.
        pub struct BucketedStep {
            /// The learner's `BucketedStep::new`, in the agent, on the
            /// judge's stream and decoder.
            pub fn new(stream: &Stream, decoder: &Decoder) -> Result<Self, Error>;
            /// The learner's `BucketedStep::step`, in the agent.
            pub fn step(&mut self, tokens: View<i32>, next: View<i32>) -> Result<(), Error>;
            /// The learner's `BucketedStep::static_buffers`, in the agent:
            /// views of the judge's device.
            pub fn static_buffers(&self) -> (View<i32>, View<i32>);
        }
    }
}
