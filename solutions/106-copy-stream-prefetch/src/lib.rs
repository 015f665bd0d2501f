//! A data loader's prefetch: while the compute stream runs the model on one
//! batch, a copy stream brings the next batch to the GPU.
//!
//! The batches are in pinned host memory, so a copy engine can read them
//! while the SMs compute. [`run`] sends each batch to the device and runs
//! the [`Model`] on it; the rules of `README.md` (and of the chapter's
//! "Copies that overlap compute") say how to make the copies overlap the
//! steps without a race.

use gpu::{AsView, DeviceBuffer, Event, PinnedBuffer, Result, Stream};
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
    let outputs = compute.alloc_zeros::<f32>(batches.len())?;
    let mut next = batches.first().map(|b| prefetch(copy, b)).transpose()?;
    for i in 0..batches.len() {
        let (batch, copied) = next.take().expect("batch i was prefetched");
        // Queue the next batch's copy first: it runs on the copy engine
        // while the SMs run this step.
        next = batches.get(i + 1).map(|b| prefetch(copy, b)).transpose()?;
        // The step waits for its batch's copy, on the GPU.
        compute.wait_event(&copied)?;
        model.forward(compute, &batch, outputs.slice(i..i + 1))?;
        // The record_stream rule: `batch` came from the copy stream's pool,
        // which may hand its memory to the next allocation on the copy
        // stream at once. Order this step's read before anything the copy
        // stream does after the drop.
        copy.wait_event(&compute.record_event()?)?;
        drop(batch);
    }
    compute.to_vec(&outputs)
}

/// Queues batch `host`'s copy to a new device buffer on `copy`; returns the
/// buffer and the event that completes once it has arrived.
fn prefetch(copy: &Stream, host: &PinnedBuffer<f32>) -> Result<(DeviceBuffer<f32>, Event)> {
    let on_device = copy.alloc_zeros::<f32>(host.len())?;
    copy.copy_from_pinned(host, &on_device)?;
    Ok((on_device, copy.record_event()?))
}
