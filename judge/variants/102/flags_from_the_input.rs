//! mistake: the done flags compare the step's input with EOS, so a request finishes one step late
//! fails: outputs_match_the_reference
//! says: after EOS
//! replaces: src/sampler.rs
//!
//! One decode step at a time: submit it, later process its results.
//!
//! Step N reads its input tokens from device buffer `tokens[N % 2]` and
//! writes the next tokens into `tokens[(N + 1) % 2]`, so step N+1 decodes from
//! tokens that never leave the GPU. The done flags are computed on the GPU
//! too. Both are copied into pinned slot `N % 2` and an event is recorded
//! after the copies: the CPU waits for that event only when it processes
//! step N, by which time step N+1 is already queued. Two slots, because step
//! N+1's copies are queued while the CPU still reads step N's.

use crate::{Batch, Request};
use gpu::{Decoder, DeviceBuffer, Event, PinnedBuffer, Result, Stream};

/// The decode loop's state: device buffers, pinned slots, events, outputs.
pub struct Sampler<'a> {
    stream: &'a Stream,
    decoder: &'a Decoder,
    requests: Vec<Request>,
    eos: i32,
    /// Input and output tokens of the steps, alternating.
    tokens: [DeviceBuffer<i32>; 2],
    /// Sticky done flags: 1 once a request has generated `eos`.
    flags: DeviceBuffer<i32>,
    /// Where step N's tokens and flags land: slot N % 2.
    host_tokens: [PinnedBuffer<i32>; 2],
    host_flags: [PinnedBuffer<i32>; 2],
    /// Recorded after step N's copies, in slot N % 2.
    copied: [Event; 2],
    submitted: usize,
    processed: usize,
    outputs: Vec<Vec<i32>>,
    finished: Vec<bool>,
}

impl<'a> Sampler<'a> {
    /// Uploads the prompts and allocates the buffers (setup: may block).
    pub fn new(stream: &'a Stream, decoder: &'a Decoder, batch: &Batch) -> Result<Self> {
        let n = batch.requests.len();
        let device = stream.device();
        let tokens = [stream.alloc_zeros(n)?, stream.alloc_zeros(n)?];
        let prompts: Vec<i32> = batch.requests.iter().map(|r| r.prompt).collect();
        stream.copy_from_host(&prompts, &tokens[0])?;
        Ok(Self {
            stream,
            decoder,
            requests: batch.requests.clone(),
            eos: batch.eos,
            tokens,
            flags: stream.alloc_zeros(n)?,
            host_tokens: [device.alloc_pinned(n)?, device.alloc_pinned(n)?],
            host_flags: [device.alloc_pinned(n)?, device.alloc_pinned(n)?],
            copied: [device.new_event()?, device.new_event()?],
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
    /// Queues the next step on the GPU and returns without waiting for it.
    pub fn submit(&mut self) -> Result<()> {
        assert!(
            self.submitted - self.processed < 2,
            "`submit`: two steps are in flight and both pinned slots are taken; call `process` first"
        );
        let (n, slot) = (self.submitted, self.submitted % 2);
        let (input, output) = (&self.tokens[n % 2], &self.tokens[(n + 1) % 2]);
        self.stream.decode_step(self.decoder, input, output)?;
        self.stream.flag_eq(input, self.eos, &self.flags)?;
        self.stream
            .copy_to_pinned(output, &self.host_tokens[slot])?;
        self.stream
            .copy_to_pinned(&self.flags, &self.host_flags[slot])?;
        self.copied[slot].record(self.stream)?;
        self.submitted += 1;
        Ok(())
    }
    // ANCHOR_END: submit

    // ANCHOR: process
    /// Waits for the oldest step not processed yet, then appends its tokens
    /// and finishes the requests that are done.
    pub fn process(&mut self) -> Result<()> {
        assert!(
            self.processed < self.submitted,
            "`process`: no step is in flight; call `submit` first"
        );
        let slot = self.processed % 2;
        self.copied[slot].synchronize()?;
        let tokens = self.host_tokens[slot].to_vec();
        let flags = self.host_flags[slot].to_vec();
        for (i, request) in self.requests.iter().enumerate() {
            if self.finished[i] {
                continue;
            }
            self.outputs[i].push(tokens[i]);
            self.finished[i] = flags[i] != 0 || self.outputs[i].len() >= request.max_new_tokens;
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
