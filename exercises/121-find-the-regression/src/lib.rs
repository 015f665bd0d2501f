//! Find the regression: a step got slower; two profiles say why.
//!
//! Part 1, [`diagnose`] (`src/diagnose.rs`): given the trace of one step
//! of an engine before a change and after it, name what the change did
//! ([`Regression`]) and point at it: a new sync, a lost overlap, a
//! launch-bound range or an allocation in the loop.
//!
//! Part 2, [`Engine::step`] (`src/engine.rs`): a decode step with all four
//! regressions in it; make it as fast as it can be.

mod diagnose;
mod engine;

pub use diagnose::diagnose;
pub use engine::{COLS, Engine, LAYERS, ROWS, SPLIT_LAYER};

/// What made a step slower, and where, in the `after` trace.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Regression {
    /// A call in which the CPU now waits for the GPU, and did not before:
    /// its `seq`.
    NewSync {
        /// The `seq` of the call that waits.
        seq: u64,
    },
    /// A copy that ran beside compute, on a stream of its own, and no
    /// longer does (it runs on the compute stream, or waits for it): its
    /// `seq`.
    LostOverlap {
        /// The `seq` of the copy.
        seq: u64,
    },
    /// A range whose kernels were split into many tiny ones, so the CPU's
    /// launches take longer than the GPU's work: the innermost range that
    /// holds them.
    LaunchBound {
        /// The range's name.
        range: String,
    },
    /// A raw allocation (`alloc_segment`, `cudaMalloc`) inside the step,
    /// freed in it (`free_segment`, `cudaFree`, which waits for the
    /// device): the `seq` of the allocation.
    AllocationInLoop {
        /// The `seq` of the `alloc_segment`.
        seq: u64,
    },
}
