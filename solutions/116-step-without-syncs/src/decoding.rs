//! The decode step, without hidden sync points.
//!
//! Everything a step touches is allocated once, in [`Decoding::new`]: a
//! pinned input buffer per step (each written once, so never while a copy
//! from it is still queued), the device input, the done flags and the
//! history of every step's predictions. The GPU marks finished requests
//! itself (`flag_eq`), and nothing needs to branch on them: a finished
//! request stays in the batch, and its later predictions are cut off its
//! output after the run. The step's events are read after the run. So a
//! step only queues work, and the CPU runs ahead of the GPU.

use crate::{Config, Report, outputs_from_history};
use gpu::{Decoder, DeviceBuffer, Event, PinnedBuffer, Result, Stream};

/// Decoding, one step at a time, on one stream.
pub struct Decoding<'d> {
    stream: Stream,
    decoder: &'d Decoder,
    config: Config,
    /// Step `t`'s input tokens go through `pinned[t]`.
    pinned: Vec<PinnedBuffer<i32>>,
    /// The step's input tokens on the device.
    input: DeviceBuffer<i32>,
    /// Done flags, one per request, set on the GPU.
    done: DeviceBuffer<i32>,
    /// Every step's predictions, step after step.
    history: DeviceBuffer<i32>,
    /// Events recorded before and after each step.
    events: Vec<(Event, Event)>,
}

impl<'d> Decoding<'d> {
    /// Decoding for `config` with `decoder` on `stream`.
    pub fn new(decoder: &'d Decoder, stream: &Stream, config: Config) -> Result<Self> {
        let device = stream.device();
        let (batch, steps) = (config.batch, config.max_steps);
        let pinned = (0..steps)
            .map(|_| device.alloc_pinned::<i32>(batch))
            .collect::<Result<_>>()?;
        Ok(Self {
            input: stream.alloc_zeros(batch)?,
            done: stream.alloc_zeros(batch)?,
            history: stream.alloc_zeros(batch * steps)?,
            events: Vec::with_capacity(steps),
            stream: stream.clone(),
            pinned,
            decoder,
            config,
        })
    }

    // ANCHOR: step
    /// Runs one step on `tokens`, the step's input token of every request.
    pub fn step(&mut self, tokens: &[i32]) -> Result<()> {
        let (s, t, batch) = (&self.stream, self.events.len(), self.config.batch);
        assert_eq!(tokens.len(), batch, "`step` takes one token per request");
        assert!(t < self.config.max_steps, "more steps than `max_steps`");
        let start = s.record_event()?;
        self.pinned[t].write(tokens)?; // written once: no copy of it queued yet
        s.copy_from_pinned(&self.pinned[t], &self.input)?;
        let predicted = self.history.slice(t * batch..(t + 1) * batch);
        s.decode_step(self.decoder, &self.input, predicted)?; // the whole batch
        s.flag_eq(predicted, self.config.eos, &self.done)?; // decided on the GPU
        self.events.push((start, s.record_event()?)); // read after the run
        Ok(())
    }
    // ANCHOR_END: step

    /// Waits for the GPU and reports the run (after the loop: waits here
    /// are fine).
    pub fn finish(self) -> Result<Report> {
        let (s, steps, batch) = (&self.stream, self.events.len(), self.config.batch);
        let history = s.to_vec(self.history.slice(0..steps * batch))?;
        let done = s.to_vec(&self.done)?;
        let step_ms = self
            .events
            .iter()
            .map(|(start, end)| start.elapsed_ms(end).map(f64::from))
            .collect::<Result<_>>()?;
        Ok(Report {
            outputs: outputs_from_history(&history, batch, steps, self.config.eos),
            finished: done.iter().filter(|&&d| d != 0).count(),
            step_ms,
        })
    }
}
