//! One decode step captured into a CUDA graph once, then replayed.
//!
//! A graph replays the kernels it captured on the addresses it captured.
//! So [`CapturedStep::new`] allocates the step's input and output once (its
//! *static* buffers) and captures one [`gpu::Stream::decode_step`] from the
//! one into the other. Each [`CapturedStep::step`] then copies the tokens it
//! is given into the static input, replays the graph, and copies the static
//! output out to where the caller wants the next tokens, before the next
//! replay overwrites it: three calls queued on one stream, none of which
//! waits for the GPU.

use gpu::{Decoder, DeviceBuffer, Graph, Result, Stream, View};

/// One decode step of `batch` tokens, captured once and replayed.
#[derive(Debug)]
pub struct CapturedStep {
    stream: Stream,
    /// The tokens the graph decodes from: the address it captured.
    input: DeviceBuffer<i32>,
    /// The tokens the graph writes: the address it captured.
    output: DeviceBuffer<i32>,
    graph: Graph,
}

impl CapturedStep {
    // ANCHOR: new
    /// Allocates the static input and output for `batch` tokens (at least
    /// one) and captures one `decode_step` of `decoder` between them on
    /// `stream`. Everything that allocates happens here, before any step.
    pub fn new(stream: &Stream, decoder: &Decoder, batch: usize) -> Result<Self> {
        let input = stream.alloc_zeros::<i32>(batch)?;
        let output = stream.alloc_zeros::<i32>(batch)?;
        stream.begin_capture()?;
        stream.decode_step(decoder, &input, &output)?; // recorded, not run
        let graph = stream.end_capture()?;
        Ok(Self {
            stream: stream.clone(),
            input,
            output,
            graph,
        })
    }
    // ANCHOR_END: new

    // ANCHOR: step
    /// One step: `next` gets the tokens the decoder chooses after `tokens`
    /// (both `batch` long, on the device). Queued on the stream given to
    /// [`CapturedStep::new`]; nothing here waits for the GPU.
    pub fn step(&mut self, tokens: View<i32>, next: View<i32>) -> Result<()> {
        // The graph reads the static input, never `tokens`: put them there.
        self.stream.copy(tokens, &self.input)?;
        self.graph.launch()?;
        // The next replay overwrites the static output: copy it out now,
        // in stream order, after this replay and before the next.
        self.stream.copy(&self.output, next)
    }
    // ANCHOR_END: step
}
