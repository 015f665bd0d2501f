//! A data loader's prefetch: while the compute stream runs the model on one
//! batch, a copy stream brings the next batch to the GPU.
//!
//! The batches are in pinned host memory, so a copy engine can read them
//! while the SMs compute. [`run`] sends each batch to the device and runs
//! the [`Model`] on it; the rules of `README.md` (and of the chapter's
//! "Copies that overlap compute") say how to make the copies overlap the
//! steps without a race.

use gpu::{AsView, PinnedBuffer, Result, Stream};
use std::time::Duration;

/// The model: what the compute stream does with each batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Model {
    /// The GPU time of one step.
    pub step: Duration,
}

impl Model {
    /// Queues one step on `batch` on `stream`: `step` of GPU time, then
    /// `out[0]` = the sum of the batch. It reads `batch` at the end of the
    /// step, as a model's last layer would.
    #[track_caller]
    pub fn forward(
        &self,
        stream: &Stream,
        batch: impl AsView<f32>,
        out: impl AsView<f32>,
    ) -> Result<()> {
        stream.sum_after(self.step, batch, out)
    }
}

/// Runs `model` on every batch, in order: batch `i` goes to the device, the
/// compute stream runs the model on it, and its output is element `i` of
/// the result. `copy` is a stream for the copies, `compute` the model's.
pub fn run(
    model: &Model,
    batches: &[PinnedBuffer<f32>],
    copy: &Stream,
    compute: &Stream,
) -> Result<Vec<f32>> {
    // TODO: everything runs on the compute stream, so each batch's copy
    // waits for the step before it, and each step for its copy: the copy
    // engine and the SMs take turns. Copy the next batch on `copy` while
    // `compute` works on this one (the README says how, and what the other
    // stream must not be allowed to do to a buffer still being read).
    let _ = copy;
    let outputs = compute.alloc_zeros::<f32>(batches.len())?;
    for (i, batch) in batches.iter().enumerate() {
        let on_device = compute.alloc_zeros::<f32>(batch.len())?;
        compute.copy_from_pinned(batch, &on_device)?;
        model.forward(compute, &on_device, outputs.slice(i..i + 1))?;
    }
    compute.to_vec(&outputs)
}
