//! Part 2: the decode step. It is right: every request gets the right
//! token. It is also slow, for four reasons, one of each kind of
//! [`crate::Regression`] (see `README.md`). Make it as fast as the
//! reference; keep the ranges, the API and the tokens.

use gpu::{DeviceBuffer, PinnedBuffer, Result, Stream};
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
/// The pieces layer [`SPLIT_LAYER`]'s MLP projections are cut into.
const PIECES: u32 = 40;

/// A decode step's buffers and streams.
pub struct Engine {
    /// The stream the layers run on (the judge's).
    compute: Stream,
    /// The batches' logits, `ROWS × COLS`: step `t` reads `batches[t % 2]`
    /// while the next batch arrives in the other.
    batches: [DeviceBuffer<f32>; 2],
    /// One token per request.
    tokens: DeviceBuffer<i32>,
    /// Steps run so far.
    steps: usize,
}

impl Engine {
    /// An engine on `stream`, the first batch's logits (`ROWS × COLS`, in
    /// pinned memory) on their way to the device.
    pub fn new(stream: &Stream, first: &PinnedBuffer<f32>) -> Result<Self> {
        let batches = [
            stream.alloc_zeros(ROWS * COLS)?,
            stream.alloc_zeros(ROWS * COLS)?,
        ];
        stream.copy_from_pinned(first, &batches[0])?;
        Ok(Self {
            batches,
            tokens: stream.alloc_zeros(ROWS)?,
            compute: stream.clone(),
            steps: 0,
        })
    }

    /// One decode step on the batch that arrived last, while `next`
    /// (`ROWS × COLS` logits, pinned) goes to the device for the next
    /// step; returns each request's token.
    pub fn step(&mut self, next: &PinnedBuffer<f32>) -> Result<Vec<i32>> {
        let (s, device) = (&self.compute, self.compute.device());
        let _step = device.range("step");
        let (current, upcoming) = (self.steps % 2, (self.steps + 1) % 2);
        // TODO: a raw scratch segment every step (`cudaMalloc`, and its
        // free below is `cudaFree`).
        let scratch = device.alloc_segment(ROWS * COLS * size_of::<f32>())?;
        let work = scratch.view::<f32>(0, ROWS * COLS)?;
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
            {
                let _mlp = device.range(&format!("layer.{layer}.mlp"));
                if layer == SPLIT_LAYER {
                    // TODO: the MLP as many tiny kernels: each projection in
                    // pieces, the scores one row at a time.
                    pieces(s, MLP[0])?;
                    for row in 0..ROWS {
                        let rows = row * COLS..(row + 1) * COLS;
                        s.affine(
                            self.batches[current].slice(rows.clone()),
                            -1.0,
                            0.0,
                            work.slice(rows),
                        )?;
                    }
                    pieces(s, MLP[1])?;
                } else {
                    s.spin(MLP[0])?;
                    s.spin(MLP[1])?;
                }
            }
            s.synchronize()?; // TODO: the CPU waits for every layer
        }
        {
            let _prefetch = device.range("prefetch");
            // TODO: the next batch's copy on the compute stream, after the layers.
            s.copy_from_pinned(next, &self.batches[upcoming])?;
        }
        {
            let _sample = device.range("sample");
            s.argmax_rows(work, ROWS, COLS, &self.tokens)?;
        }
        device.free_segment(scratch)?;
        self.steps += 1;
        let _read = device.range("read tokens");
        s.to_vec(&self.tokens) // the one wait the step needs
    }
}

/// A kernel of `length` as [`PIECES`] tiny ones.
fn pieces(s: &Stream, length: Duration) -> Result<()> {
    for _ in 0..PIECES {
        s.spin(length / PIECES)?;
    }
    Ok(())
}
