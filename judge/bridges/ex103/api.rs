api! {
    types {
        /// What went wrong.
        #[derive(Debug)]
        pub enum Error {
            /// A GPU call failed (a capture that an illegal call invalidated, a view
            /// of freed memory, ...).
            Gpu(GpuError),
            /// `decode` got a different number of inputs and outputs.
            Batches {
                /// Number of input batches.
                inputs: usize,
                /// Number of output views.
                outputs: usize,
            },
            /// A batch is not whole rows, or its output has another length.
            Shape {
                /// Which batch.
                index: usize,
                /// Elements of its input.
                input: usize,
                /// Elements of its output.
                output: usize,
            },
            /// A batch has no rows or more than the largest bucket.
            BatchSize {
                /// Its number of rows.
                rows: usize,
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
        /// The learner's runner, which lives in the agent.
        pub struct Runner {
            /// The learner's `Runner::new`, in the agent, on the judge's
            /// stream, with the learner's own `Model::new()` (which must be
            /// the course's).
            pub fn new(stream: &Stream, model: &Model) -> Result<Self, Error>;
            /// The learner's `Runner::decode`, in the agent: each input
            /// and output is a view of the judge's device.
            pub fn decode(&mut self, inputs: &[View<f32>], outputs: &[View<f32>]) -> Result<(), Error>;
        }
    }
}
