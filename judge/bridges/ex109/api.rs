api! {
    types {
        /// The two pools.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Pool {
            /// Rounded requests up to 1 MiB.
            Small,
            /// Rounded requests over 1 MiB.
            Large,
        }
    }
    fns {
        /// The learner's `round_size`, asked in the agent.
        pub fn round_size(size: usize) -> usize;
        /// The learner's `pool_for`, asked in the agent.
        pub fn pool_for(rounded: usize) -> Pool;
        /// The learner's `segment_size`, asked in the agent.
        pub fn segment_size(rounded: usize) -> usize;
    }
}
