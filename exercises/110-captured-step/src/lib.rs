//! One decode step captured into a CUDA graph once, then replayed.
//!
//! A graph replays the kernels it captured on the addresses it captured.
//! As given, [`CapturedStep`] captures nothing: each [`CapturedStep::step`]
//! launches `decode_step` eagerly, from the caller's tokens into the
//! caller's output. Its tokens are right, and no step is a replay. Capture
//! the step once, in [`CapturedStep::new`], on buffers of its own, and
//! replay it in every step (see `README.md`).

use gpu::{Decoder, Result, Stream, View};

/// One decode step of `batch` tokens, captured once and replayed.
#[derive(Debug)]
pub struct CapturedStep {
    stream: Stream,
    // TODO: the graph reads and writes the buffers it was captured with:
    // keep them here, with the graph, instead of the decoder.
    decoder: Decoder,
}

impl CapturedStep {
    /// Allocates the static input and output for `batch` tokens (at least
    /// one) and captures one `decode_step` of `decoder` between them on
    /// `stream`. Everything that allocates happens here, before any step.
    pub fn new(stream: &Stream, decoder: &Decoder, batch: usize) -> Result<Self> {
        // TODO: allocate the static input and output of `batch` tokens, and
        // capture one `decode_step` from the one into the other.
        let _ = batch;
        Ok(Self {
            stream: stream.clone(),
            decoder: decoder.clone(),
        })
    }

    /// One step: `next` gets the tokens the decoder chooses after `tokens`
    /// (both `batch` long, on the device). Queued on the stream given to
    /// [`CapturedStep::new`]; nothing here waits for the GPU.
    pub fn step(&mut self, tokens: View<i32>, next: View<i32>) -> Result<()> {
        // TODO: replay the captured step instead: copy `tokens` into the
        // static input, launch the graph, copy the static output to `next`.
        self.stream.decode_step(&self.decoder, tokens, next)
    }
}
