//! Why a runner's call failed: the learner's error, as it travels from the
//! agent (the variants of the starter's `src/error.rs`, and one the bridge
//! adds: a learner `Model` that is not the course's).

use serde::{Deserialize, Serialize};
use std::fmt;

/// What went wrong.
#[derive(Debug, Serialize, Deserialize)]
pub enum Error {
    /// A GPU call failed (a capture that an illegal call invalidated, a view
    /// of freed memory, ...).
    Gpu(gpu::GpuError),
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
    /// The learner's `Model::new()` is not the course's model (the bridge's
    /// own variant: `src/model.rs` is given, and the checks compare with
    /// the course's).
    ModelChanged,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Gpu(e) => write!(f, "{e}"),
            Self::Batches { inputs, outputs } => write!(
                f,
                "`decode` got {inputs} inputs and {outputs} outputs; pass one output view per batch"
            ),
            Self::Shape {
                index,
                input,
                output,
            } => write!(
                f,
                "batch {index} has {input} input and {output} output elements; both must be the same whole number of rows of `WIDTH` = {} elements",
                crate::WIDTH
            ),
            Self::ModelChanged => f.write_str(
                "your `Model::new()` is not the course's model: `src/model.rs` is given; put it back as the starter has it (`judge reset 103` backs your crate up first)"
            ),
            Self::BatchSize { rows } => write!(
                f,
                "a batch of {rows} rows has no bucket; split it into batches of 1 to `MAX_ROWS` = {} rows",
                crate::MAX_ROWS
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Gpu(e) => Some(e),
            _ => None,
        }
    }
}

impl From<gpu::GpuError> for Error {
    fn from(e: gpu::GpuError) -> Self {
        Self::Gpu(e)
    }
}
