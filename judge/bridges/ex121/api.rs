api! {
    types {
        /// What made a step slower, and where, in the `after` trace.
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum Regression {
            /// A call in which the CPU now waits for the GPU: its `seq`.
            NewSync {
                /// The `seq` of the call that waits.
                seq: u64,
            },
            /// A copy that no longer runs beside compute: its `seq`.
            LostOverlap {
                /// The `seq` of the copy.
                seq: u64,
            },
            /// The innermost range whose kernels were split into many tiny ones.
            LaunchBound {
                /// The range's name.
                range: String,
            },
            /// A raw allocation inside the step: its `seq`.
            AllocationInLoop {
                /// The `seq` of the `alloc_segment`.
                seq: u64,
            },
        }
    }
    fns {
        /// The learner's `diagnose`, asked in the agent about the judge's traces.
        pub fn diagnose(before: &Trace, after: &Trace) -> Regression;
    }
    objects {
        /// The learner's engine, which lives in the agent.
        pub struct Engine {
            /// The learner's `Engine::new`, in the agent, on the judge's
            /// stream, the first batch in the judge's pinned memory.
            pub fn new(stream: &Stream, first: &PinnedBuffer<f32>) -> Result<Self>;
            /// The learner's `Engine::step`, in the agent: the next batch
            /// in the judge's pinned memory.
            pub fn step(&mut self, next: &PinnedBuffer<f32>) -> Result<Vec<i32>>;
        }
    }
}
