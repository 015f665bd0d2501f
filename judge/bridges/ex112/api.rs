api! {
    types {
        /// How to measure one size: launches to throw away first, then launches to
        /// time.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Plan {
            /// Untimed launches before the timed ones.
            pub warmup: usize,
            /// Timed launches.
            pub launches: usize,
        }
        /// What one size of kernel costs each processor, per launch.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct Profile {
            /// CPU time of one launch, in microseconds.
            pub cpu_us: f64,
            /// GPU time of one kernel, in microseconds.
            pub gpu_us: f64,
        }
        /// Which processor sets the pace of a loop of launches.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Bound {
            /// The CPU.
            Launch,
            /// The GPU.
            Compute,
        }
    }
    fns {
        /// The learner's `profile`, in the agent, on the judge's stream:
        /// `launch` is the check's kernel, called back for each launch.
        pub fn profile(
            stream: &Stream,
            plan: Plan,
            #[callback] launch: FnMut(on: &Stream) -> Result<()>,
        ) -> Result<Profile>;
        /// The learner's `crossover`, asked in the agent.
        pub fn crossover(profiles: &[Profile]) -> Option<usize>;
    }
    impls {
        impl Profile {
            /// The learner's `Profile::bound`, asked in the agent.
            pub fn bound(&self) -> Bound;
        }
    }
}
