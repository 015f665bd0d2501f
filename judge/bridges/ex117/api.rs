api! {
    types {
        /// The compute stage: what the compute stream does with each chunk.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Layer {
            /// The GPU time of the layer on one chunk.
            pub step: Duration,
        }
        /// The three streams of the pipeline, one per stage.
        #[derive(Clone, Copy, Debug)]
        pub struct Streams<'s> {
            /// Copies the chunks in, host to device.
            pub copy_in: &'s Stream,
            /// Runs the layer.
            pub compute: &'s Stream,
            /// Copies the results out, device to host.
            pub copy_out: &'s Stream,
        }
    }
    fns {
        /// The learner's `run`, in the agent, on the judge's streams and
        /// pinned buffers.
        pub fn run(
            layer: &Layer,
            chunks: &[PinnedBuffer<f32>],
            outputs: &[PinnedBuffer<f32>],
            streams: Streams<'_>,
        ) -> Result<Vec<Vec<f32>>>;
    }
}
