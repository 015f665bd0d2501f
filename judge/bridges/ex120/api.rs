api! {
    types {
        /// The time of one range, as a profiler's summary table shows it.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct RangeTime {
            /// CPU time from the range's open to its close, nested ranges included.
            pub cpu_ns: u64,
            /// `cpu_ns` less the CPU time of the ranges directly nested in it.
            pub cpu_self_ns: u64,
            /// How long the GPU was busy with the work the range's calls queued, on any stream.
            pub gpu_ns: u64,
            /// The same for the work queued in the range outside every range nested in it.
            pub gpu_self_ns: u64,
        }
    }
    fns {
        /// The learner's `attribute`, asked in the agent about the judge's trace.
        pub fn attribute(trace: &Trace) -> Vec<RangeTime>;
    }
}
