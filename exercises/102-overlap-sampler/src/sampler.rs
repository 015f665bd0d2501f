//! One decode step at a time: submit it, later process its results.
//!
//! Step N reads its input tokens from device buffer `tokens[N % 2]` and
//! writes the next tokens into `tokens[(N + 1) % 2]`, so step N+1 decodes from
//! tokens that never leave the GPU. As given, `submit` then copies the tokens
//! into a `Vec`, which makes the CPU wait for the step, and `process` checks
//! for the end-of-sequence token on the CPU.

use crate::{Batch, Request};
use gpu::{Decoder, DeviceBuffer, Result, Stream};

/// The decode loop's state: device buffers, the latest tokens, outputs.
pub struct Sampler<'a> {
    stream: &'a Stream,
    decoder: &'a Decoder,
    requests: Vec<Request>,
    eos: i32,
    /// Input and output tokens of the steps, alternating.
    tokens: [DeviceBuffer<i32>; 2],
    // TODO: done flags on the GPU, pinned slots for the tokens and flags of
    // two steps, and an event per slot recorded after the copies.
    /// The tokens of the steps submitted and not processed yet.
    latest: Vec<Vec<i32>>,
    submitted: usize,
    processed: usize,
    outputs: Vec<Vec<i32>>,
    finished: Vec<bool>,
}

impl<'a> Sampler<'a> {
    /// Uploads the prompts and allocates the buffers (setup: may block).
    pub fn new(stream: &'a Stream, decoder: &'a Decoder, batch: &Batch) -> Result<Self> {
        let n = batch.requests.len();
        let tokens = [stream.alloc_zeros(n)?, stream.alloc_zeros(n)?];
        let prompts: Vec<i32> = batch.requests.iter().map(|r| r.prompt).collect();
        stream.copy_from_host(&prompts, &tokens[0])?;
        Ok(Self {
            stream,
            decoder,
            requests: batch.requests.clone(),
            eos: batch.eos,
            tokens,
            latest: Vec::new(),
            submitted: 0,
            processed: 0,
            outputs: vec![Vec::new(); n],
            finished: batch
                .requests
                .iter()
                .map(|r| r.max_new_tokens == 0)
                .collect(),
        })
    }

    // ANCHOR: submit
    /// Queues the next step on the GPU. TODO: return without waiting for it.
    pub fn submit(&mut self) -> Result<()> {
        let n = self.submitted;
        let (input, output) = (&self.tokens[n % 2], &self.tokens[(n + 1) % 2]);
        self.stream.decode_step(self.decoder, input, output)?;
        // TODO: this copy into a `Vec` waits until the GPU has run the step.
        self.latest.push(self.stream.to_vec(output)?);
        self.submitted += 1;
        Ok(())
    }
    // ANCHOR_END: submit

    // ANCHOR: process
    /// Appends the tokens of the oldest step not processed yet and finishes
    /// the requests that are done.
    pub fn process(&mut self) -> Result<()> {
        assert!(
            self.processed < self.submitted,
            "`process`: no step is in flight; call `submit` first"
        );
        // TODO: wait for this step's event here, then read its pinned slot.
        let tokens = self.latest.remove(0);
        for (i, request) in self.requests.iter().enumerate() {
            if self.finished[i] {
                continue;
            }
            self.outputs[i].push(tokens[i]);
            self.finished[i] =
                tokens[i] == self.eos || self.outputs[i].len() >= request.max_new_tokens;
        }
        self.processed += 1;
        Ok(())
    }
    // ANCHOR_END: process

    /// Whether every request has finished (as far as the steps processed say).
    pub fn is_finished(&self) -> bool {
        self.finished.iter().all(|&f| f)
    }

    /// The tokens generated so far, one list per request.
    pub fn outputs(&self) -> &[Vec<i32>] {
        &self.outputs
    }

    /// The generated tokens, one list per request.
    pub fn into_outputs(self) -> Vec<Vec<i32>> {
        self.outputs
    }
}
