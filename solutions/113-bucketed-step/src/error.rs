//! Given: why a step failed.

use std::fmt;

/// What went wrong in a step.
#[derive(Debug)]
pub enum Error {
    /// A GPU call failed.
    Gpu(gpu::GpuError),
    /// The batch has more rows than the largest bucket: no graph can run it.
    TooManyRows {
        /// The rows of the batch.
        rows: usize,
        /// The largest bucket, [`crate::MAX_ROWS`].
        max: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Gpu(e) => write!(f, "{e}"),
            Self::TooManyRows { rows, max } => write!(
                f,
                "a batch of {rows} rows has no bucket: split it into batches of at most `MAX_ROWS` = {max} rows"
            ),
        }
    }
}

// `Display` already spells out a GPU error's own text: no `source` to
// print it twice.
impl std::error::Error for Error {}

impl From<gpu::GpuError> for Error {
    fn from(e: gpu::GpuError) -> Self {
        Self::Gpu(e)
    }
}
