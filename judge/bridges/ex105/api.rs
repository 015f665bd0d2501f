api! {
    types {
        /// How to measure: runs to throw away first, then runs to time.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Plan {
            /// Untimed runs before the first timed one.
            pub warmup: usize,
            /// Timed runs, one sample each.
            pub reps: usize,
        }
        /// The work of one run: a product of an `m × k` matrix and a `k × n` one.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Matmul {
            /// Rows of the product.
            pub m: u64,
            /// Columns of the product.
            pub n: u64,
            /// The length of each dot product.
            pub k: u64,
        }
        /// What a measurement found.
        #[derive(Clone, Debug, PartialEq)]
        pub struct Timing {
            /// The GPU time of each timed run in milliseconds, in the order they ran.
            pub samples_ms: Vec<f64>,
            /// The median of `samples_ms`.
            pub median_ms: f64,
            /// Floating-point operations per second at the median time.
            pub flops_per_s: f64,
        }
    }
    fns {
        /// The learner's `measure`, in the agent, on the judge's stream:
        /// `run` is the check's workload, called back for each run.
        pub fn measure(
            stream: &Stream,
            plan: Plan,
            work: Matmul,
            #[callback] run: FnMut(on: &Stream) -> Result<()>,
        ) -> Result<Timing>;
    }
}
