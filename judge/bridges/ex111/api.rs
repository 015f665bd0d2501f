api! {
    fns {
        /// The learner's `handoff`, in the agent, on the judge's streams,
        /// pinned buffer and device buffers.
        pub fn handoff(
            producer: &Stream,
            consumer: &Stream,
            host: &PinnedBuffer<f32>,
            x: View<f32>,
            y: View<f32>,
        ) -> Result<()>;
    }
}
