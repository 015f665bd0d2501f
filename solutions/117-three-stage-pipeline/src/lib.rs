//! A three-stage pipeline on three streams: each chunk is copied in from
//! pinned memory, run through a layer, and copied out into pinned memory,
//! so that chunk k + 1's copy-in, chunk k's layer and chunk k − 1's copy-out
//! run at the same time on the two copy engines and the SMs.
//!
//! [`run`] holds two device buffers per stage and reuses them chunk after
//! chunk; the rules of `README.md` (and of the chapter's "Copies that
//! overlap compute") say how to order the stages and the reuse with events.

use gpu::{AsView, Event, PinnedBuffer, Result, Stream};
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
    let Streams {
        copy_in,
        compute,
        copy_out,
    } = streams;
    let len = chunks.first().map_or(1, PinnedBuffer::len);
    // Two buffers per stage: the inputs written by copy-in and read by the
    // layer, the results written by the layer and read by copy-out.
    let inputs = [copy_in.alloc_zeros::<f32>(len)?, copy_in.alloc_zeros(len)?];
    let results = [compute.alloc_zeros::<f32>(len)?, compute.alloc_zeros(len)?];
    // For each slot, the event after the last read of its buffer: the
    // layer's read of an input, the copy-out's read of a result.
    let mut input_read: [Option<Event>; 2] = [None, None];
    let mut result_read: [Option<Event>; 2] = [None, None];
    for (k, (chunk, out)) in chunks.iter().zip(outputs).enumerate() {
        let slot = k % 2;
        // Copy-in: the input buffer is refilled only after the layer that
        // read it two chunks ago is done.
        if let Some(read) = &input_read[slot] {
            copy_in.wait_event(read)?;
        }
        copy_in.copy_from_pinned(chunk, &inputs[slot])?;
        let arrived = copy_in.record_event()?;
        // Compute: after this chunk's copy-in, and after the copy-out that
        // read the result buffer two chunks ago.
        compute.wait_event(&arrived)?;
        if let Some(read) = &result_read[slot] {
            compute.wait_event(read)?;
        }
        layer.forward(compute, &inputs[slot], &results[slot])?;
        let computed = compute.record_event()?;
        // Copy-out: after this chunk's layer.
        copy_out.wait_event(&computed)?;
        copy_out.copy_to_pinned(&results[slot], out)?;
        result_read[slot] = Some(copy_out.record_event()?);
        input_read[slot] = Some(computed);
    }
    // The one CPU wait: the last copy-out is ordered after every stage of
    // every chunk, so once it is done the outputs can be read and the
    // buffers dropped.
    copy_out.synchronize()?;
    Ok(outputs[..chunks.len()]
        .iter()
        .map(|output| output.to_vec())
        .collect())
}
