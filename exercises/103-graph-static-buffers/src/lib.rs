//! A decode step replayed from CUDA graphs, one graph per batch-size bucket.
//!
//! The model ([`Model`]) is a stack of [`LAYERS`] tiny layers: run eagerly,
//! a step costs the CPU one launch per layer, far more than the GPU needs to
//! compute it. This starter runs it eagerly, and its outputs are right.
//! Make each step one graph launch (the README says how):
//!
//! * in [`Runner::new`]: allocate static buffers for [`MAX_ROWS`] rows,
//!   warm the model up eagerly on a side stream, then capture one graph per
//!   bucket in [`BUCKETS`] over the first `bucket` rows of those buffers;
//! * in [`bucket_for`]: the smallest bucket that holds a batch;
//! * in [`Runner::decode`], for each batch: copy it into the static input,
//!   fill the padding rows, launch the bucket's graph, and copy the real rows
//!   out of the static output before the next replay overwrites them.

mod error;
mod model;

pub use error::Error;
pub use model::{LAYERS, Model, WIDTH};

use gpu::{DeviceBuffer, Stream, View};

/// The batch sizes a graph is captured for.
pub const BUCKETS: [usize; 5] = [1, 2, 4, 8, 16];
/// The largest batch a step takes: the largest bucket.
pub const MAX_ROWS: usize = 16;

/// The smallest bucket that holds `rows` rows; `None` for 0 rows or more
/// than [`MAX_ROWS`].
pub fn bucket_for(rows: usize) -> Option<usize> {
    // TODO: the smallest of `BUCKETS` that is at least `rows`.
    todo!("the bucket for a batch of {rows} rows")
}

/// Runs decode steps of a changing batch size. Eager for now: one launch
/// per layer per step.
pub struct Runner {
    stream: Stream,
    model: Model,
    // TODO: static input and output buffers, and one `gpu::Graph` per bucket.
    scratch: [DeviceBuffer<f32>; 2],
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Runner(eager on {:?})", self.stream)
    }
}

impl Runner {
    /// Sets up everything a step needs, before the first step.
    pub fn new(stream: &Stream, model: &Model) -> Result<Self, Error> {
        // TODO: allocate the static buffers, warm up on a side stream, and
        // capture one graph per bucket.
        let len = MAX_ROWS * WIDTH;
        let scratch = [stream.alloc_zeros::<f32>(len)?, stream.alloc_zeros(len)?];
        Ok(Self {
            stream: stream.clone(),
            model: model.clone(),
            scratch,
        })
    }

    /// Runs one step per batch: `outputs[i]` gets the model's output for
    /// `inputs[i]`. A batch is 1 to [`MAX_ROWS`] rows of [`WIDTH`] elements,
    /// and `outputs[i]` has the length of `inputs[i]`. Everything is queued
    /// on the runner's stream; nothing here waits for the GPU.
    pub fn decode(&mut self, inputs: &[View<f32>], outputs: &[View<f32>]) -> Result<(), Error> {
        check_batches(inputs, outputs)?;
        for (&x, &y) in inputs.iter().zip(outputs) {
            // TODO: copy in, pad, launch the bucket's graph, copy out.
            let n = x.len();
            let scratch = [self.scratch[0].slice(0..n), self.scratch[1].slice(0..n)];
            self.model.forward(&self.stream, x, y, scratch)?;
        }
        Ok(())
    }
}

/// Checks that every batch has 1 to [`MAX_ROWS`] whole rows and an output
/// of its length.
fn check_batches(inputs: &[View<f32>], outputs: &[View<f32>]) -> Result<(), Error> {
    if inputs.len() != outputs.len() {
        return Err(Error::Batches {
            inputs: inputs.len(),
            outputs: outputs.len(),
        });
    }
    for (index, (x, y)) in inputs.iter().zip(outputs).enumerate() {
        if !x.len().is_multiple_of(WIDTH) || x.len() != y.len() {
            return Err(Error::Shape {
                index,
                input: x.len(),
                output: y.len(),
            });
        }
        let rows = x.len() / WIDTH;
        if rows == 0 || rows > MAX_ROWS {
            return Err(Error::BatchSize { rows });
        }
    }
    Ok(())
}
