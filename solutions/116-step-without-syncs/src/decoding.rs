//! The decode step, without hidden sync points.
//!
//! Everything a step touches is allocated once, in [`Decoding::new`]: a ring
//! of pinned input slots, each with the event after the last copy from it
//! (the CPU rewrites a slot only once that event is done), the device
//! input, the done flags and the history of every step's predictions. The
//! ring is as deep as the CPU may run ahead of the GPU: a serving loop sizes
//! it to the few steps it lets the CPU queue; this run queues all of its
//! steps behind a busy GPU, so the ring has a slot per step and no slot is
//! rewritten. The GPU marks finished requests itself (`flag_eq`), and
//! nothing needs to branch on them: a finished request stays in the batch,
//! and its later predictions are cut off its output after the run. The
//! step's events are read after the run. So a step only queues work, and
//! the CPU runs ahead of the GPU.

use crate::{Config, Report, outputs_from_history};
use gpu::{Decoder, DeviceBuffer, Event, PinnedBuffer, Result, Stream};

/// Decoding, one step at a time, on one stream.
pub struct Decoding<'d> {
    stream: Stream,
    decoder: &'d Decoder,
    config: Config,
    /// The pinned input slots: step `t` writes slot `t % slots.len()`.
    slots: Vec<Slot>,
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
        // As deep as the CPU runs ahead: here, every step of the run.
        let slots = (0..steps)
            .map(|_| {
                let pinned = device.alloc_pinned::<i32>(batch)?;
                Ok(Slot {
                    pinned,
                    copied: None,
                })
            })
            .collect::<Result<_>>()?;
        Ok(Self {
            input: stream.alloc_zeros(batch)?,
            done: stream.alloc_zeros(batch)?,
            history: stream.alloc_zeros(batch * steps)?,
            events: Vec::with_capacity(steps),
            stream: stream.clone(),
            slots,
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
        let ring = self.slots.len();
        self.slots[t % ring].send(s, tokens, &self.input)?;
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

/// A pinned input slot, and the event after the last copy queued from it.
struct Slot {
    pinned: PinnedBuffer<i32>,
    copied: Option<Event>,
}

impl Slot {
    /// Writes `tokens` into the slot and queues their copy to `input` on `s`.
    /// The slot is rewritten only once the copy before is done: a ring too
    /// shallow for how far the CPU runs ahead waits here (never in this run,
    /// where every step has its own slot).
    fn send(&mut self, s: &Stream, tokens: &[i32], input: &DeviceBuffer<i32>) -> Result<()> {
        if let Some(copied) = self.copied.take() {
            copied.synchronize()?;
        }
        self.pinned.write(tokens)?;
        s.copy_from_pinned(&self.pinned, input)?;
        self.copied = Some(s.record_event()?);
        Ok(())
    }
}
