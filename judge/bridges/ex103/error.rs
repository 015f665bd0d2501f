//! How the learner's error reads in the checks (its variants are the
//! starter's `src/error.rs`, declared in `api.rs`).

use crate::Error;
use std::fmt;

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
