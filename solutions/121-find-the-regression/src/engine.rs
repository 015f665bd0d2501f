//! The decode step, fixed.
//!
//! Everything a step touches is allocated once, in [`Engine::new`]: the
//! two batch buffers the copies alternate between, the work buffer and
//! the tokens. The next batch's copy runs on a stream of its own, beside
//! the layers, and the compute stream waits for it with an event, on the
//! GPU, one step later. Layer [`SPLIT_LAYER`]'s MLP is three kernels again.
//! The only call that waits for the GPU is the read of the tokens at the
//! end of the step.

use gpu::{DeviceBuffer, Event, PinnedBuffer, Result, Stream};
use std::time::Duration;

/// Requests in a batch: the rows of the logits.
pub const ROWS: usize = 32;
/// Tokens of the vocabulary: the columns of the logits.
pub const COLS: usize = 65_536;
/// Decoder layers.
pub const LAYERS: usize = 4;
/// The layer whose MLP also turns the batch's logits into the work
/// buffer's scores.
pub const SPLIT_LAYER: usize = 2;

/// The embedding's kernel.
const EMBED: Duration = Duration::from_micros(20);
/// The attention's kernels: qkv projection, scores, softmax, output projection.
const ATTENTION: [Duration; 4] = [
    Duration::from_micros(30),
    Duration::from_micros(20),
    Duration::from_micros(15),
    Duration::from_micros(25),
];
/// The MLP's up and down projections.
const MLP: [Duration; 2] = [Duration::from_micros(40), Duration::from_micros(40)];

/// A decode step's buffers and streams.
pub struct Engine {
    /// The stream the layers run on (the judge's).
    compute: Stream,
    /// The stream the next batch's copy runs on.
    copy: Stream,
    /// The batches' logits, `ROWS × COLS`: step `t` reads `batches[t % 2]`
    /// while the next batch arrives in the other.
    batches: [DeviceBuffer<f32>; 2],
    /// Recorded on the copy stream after the copy of the batch the next
    /// step reads.
    arrived: Event,
    /// The scores, `ROWS × COLS`.
    work: DeviceBuffer<f32>,
    /// One token per request.
    tokens: DeviceBuffer<i32>,
    /// Steps run so far.
    steps: usize,
}

impl Engine {
    /// An engine on `stream`, the first batch's logits (`ROWS × COLS`, in
    /// pinned memory) on their way to the device.
    pub fn new(stream: &Stream, first: &PinnedBuffer<f32>) -> Result<Self> {
        let copy = stream.device().new_stream()?;
        let batches = [
            stream.alloc_zeros(ROWS * COLS)?,
            stream.alloc_zeros(ROWS * COLS)?,
        ];
        // The copy stream's first copy must follow the zeroing of its target.
        copy.wait_event(&stream.record_event()?)?;
        copy.copy_from_pinned(first, &batches[0])?;
        Ok(Self {
            arrived: copy.record_event()?,
            copy,
            batches,
            work: stream.alloc_zeros(ROWS * COLS)?,
            tokens: stream.alloc_zeros(ROWS)?,
            compute: stream.clone(),
            steps: 0,
        })
    }

    // ANCHOR: step
    /// One decode step on the batch that arrived last, while `next`
    /// (`ROWS × COLS` logits, pinned) goes to the device for the next
    /// step; returns each request's token.
    pub fn step(&mut self, next: &PinnedBuffer<f32>) -> Result<Vec<i32>> {
        let (s, device) = (&self.compute, self.compute.device());
        let _step = device.range("step");
        let (current, upcoming) = (self.steps % 2, (self.steps + 1) % 2);
        // The layers read the batch once its copy has arrived: the GPU waits.
        s.wait_event(&self.arrived)?;
        {
            let _prefetch = device.range("prefetch");
            // `upcoming` was last read by the previous step, which the CPU
            // saw end (its read of the tokens): the copy may overwrite it.
            self.copy.copy_from_pinned(next, &self.batches[upcoming])?;
            self.arrived = self.copy.record_event()?;
        }
        self.layers(&self.batches[current])?;
        {
            let _sample = device.range("sample");
            s.argmax_rows(&self.work, ROWS, COLS, &self.tokens)?;
        }
        self.steps += 1;
        let _read = device.range("read tokens");
        s.to_vec(&self.tokens) // the one wait of the step
    }
    // ANCHOR_END: step

    /// The embedding and the layers, on the compute stream.
    fn layers(&self, batch: &DeviceBuffer<f32>) -> Result<()> {
        let (s, device) = (&self.compute, self.compute.device());
        {
            let _embed = device.range("embed");
            s.spin(EMBED)?;
        }
        for layer in 0..LAYERS {
            let _layer = device.range(&format!("layer.{layer}"));
            {
                let _attention = device.range(&format!("layer.{layer}.attention"));
                for kernel in ATTENTION {
                    s.spin(kernel)?;
                }
            }
            let _mlp = device.range(&format!("layer.{layer}.mlp"));
            s.spin(MLP[0])?;
            if layer == SPLIT_LAYER {
                s.affine(batch, -1.0, 0.0, &self.work)?; // one kernel, every row
            }
            s.spin(MLP[1])?;
        }
        Ok(())
    }
}
