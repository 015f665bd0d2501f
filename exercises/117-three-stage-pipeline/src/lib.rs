//! A three-stage pipeline on three streams: each chunk is copied in from
//! pinned memory, run through a layer, and copied out into pinned memory,
//! so that chunk k + 1's copy-in, chunk k's layer and chunk k − 1's copy-out
//! run at the same time on the two copy engines and the SMs.
//!
//! [`run`] holds two device buffers per stage and reuses them chunk after
//! chunk; the rules of `README.md` (and of the chapter's "Copies that
//! overlap compute") say how to order the stages and the reuse with events.

use gpu::{AsView, PinnedBuffer, Result, Stream};
use std::time::Duration;

/// The compute stage: what the compute stream does with each chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layer {
    /// The GPU time of the layer on one chunk.
    pub step: Duration,
}

impl Layer {
    /// Queues the layer on `stream`: `step` of GPU time, then
    /// `y[i] = 2 x[i] + 1`. It reads `x` and writes `y` at the end of the
    /// step, as a model's last kernel would.
    #[track_caller]
    pub fn forward(&self, stream: &Stream, x: impl AsView<f32>, y: impl AsView<f32>) -> Result<()> {
        stream.spin(self.step)?;
        stream.affine(x, 2.0, 1.0, y)
    }
}

/// The three streams of the pipeline, one per stage.
#[derive(Clone, Copy, Debug)]
pub struct Streams<'s> {
    /// Copies the chunks in, host to device.
    pub copy_in: &'s Stream,
    /// Runs the layer.
    pub compute: &'s Stream,
    /// Copies the results out, device to host.
    pub copy_out: &'s Stream,
}

/// Runs `layer` on every chunk, in order: chunk `k` (pinned, all chunks of
/// one length) is copied to the device, the layer runs on it, and its
/// result is copied into `outputs[k]` (pinned, one per chunk). Returns the
/// outputs' contents, read once the pipeline is done.
pub fn run(
    layer: &Layer,
    chunks: &[PinnedBuffer<f32>],
    outputs: &[PinnedBuffer<f32>],
    streams: Streams<'_>,
) -> Result<Vec<Vec<f32>>> {
    // TODO: everything runs on the compute stream with one buffer per
    // stage, so each chunk's copy-in waits for the chunk before it to be
    // copied out: the two copy engines and the SMs take turns. Put each
    // stage on its own stream with two buffers per stage, and order with
    // events both each chunk's stages and each buffer's reuse after the
    // stage that last read it (the README says how).
    let Streams { compute, .. } = streams;
    let len = chunks.first().map_or(1, PinnedBuffer::len);
    let input = compute.alloc_zeros::<f32>(len)?;
    let result = compute.alloc_zeros::<f32>(len)?;
    for (chunk, out) in chunks.iter().zip(outputs) {
        compute.copy_from_pinned(chunk, &input)?;
        layer.forward(compute, &input, &result)?;
        compute.copy_to_pinned(&result, out)?;
    }
    compute.synchronize()?;
    Ok(outputs[..chunks.len()]
        .iter()
        .map(|output| output.to_vec())
        .collect())
}
