//! The decode step. It is right, and it makes the CPU wait for the GPU four
//! times a step, each for a reason real decoding code has (see
//! `README.md`). Make `step` only queue work; `finish` may wait.

use crate::{Config, Report, outputs_from_history};
use gpu::{Decoder, DeviceBuffer, Result, Stream};

/// Decoding, one step at a time, on one stream.
pub struct Decoding<'d> {
    stream: Stream,
    decoder: &'d Decoder,
    config: Config,
    /// The step's input tokens on the device.
    input: DeviceBuffer<i32>,
    /// The step's predictions on the device.
    output: DeviceBuffer<i32>,
    /// Done flags, one per request, set on the GPU.
    done: DeviceBuffer<i32>,
    /// Every step's predictions, step after step, on the CPU.
    history: Vec<i32>,
    /// Each step's GPU time.
    step_ms: Vec<f64>,
}

impl<'d> Decoding<'d> {
    /// Decoding for `config` with `decoder` on `stream`.
    pub fn new(decoder: &'d Decoder, stream: &Stream, config: Config) -> Result<Self> {
        let batch = config.batch;
        Ok(Self {
            input: stream.alloc_zeros(batch)?,
            output: stream.alloc_zeros(batch)?,
            done: stream.alloc_zeros(batch)?,
            history: Vec::new(),
            step_ms: Vec::new(),
            stream: stream.clone(),
            decoder,
            config,
        })
    }

    /// Runs one step on `tokens`, the step's input token of every request.
    pub fn step(&mut self, tokens: &[i32]) -> Result<()> {
        let (s, batch) = (&self.stream, self.config.batch);
        assert_eq!(tokens.len(), batch, "`step` takes one token per request");
        let start = s.record_event()?;
        // 1. Pinned memory allocated every step. Dropped at the end of the
        //    step, it is `cuMemFreeHost`, which waits for the whole device.
        let staged = s.device().alloc_pinned::<i32>(batch)?;
        staged.write(tokens)?;
        s.copy_from_pinned(&staged, &self.input)?;
        // 2. A branch on data (`while not done.all()`): decode only while a
        //    request is unfinished. The CPU must read the count to branch.
        let finished = s.alloc_zeros::<i32>(1)?;
        s.count_eq(&self.done, 1, &finished)?;
        if (s.to_vec(&finished)?[0] as usize) < batch {
            s.decode_step(self.decoder, &self.input, &self.output)?;
            s.flag_eq(&self.output, self.config.eos, &self.done)?;
        }
        // 3. The step's predictions read back to the CPU every step.
        self.history.extend(s.to_vec(&self.output)?);
        // 4. The step's time read at once: `elapsed_ms` waits for both events.
        let end = s.record_event()?;
        self.step_ms.push(f64::from(start.elapsed_ms(&end)?));
        Ok(())
    }

    /// Waits for the GPU and reports the run (after the loop: waits here
    /// are fine).
    pub fn finish(self) -> Result<Report> {
        let (steps, batch) = (self.step_ms.len(), self.config.batch);
        let done = self.stream.to_vec(&self.done)?;
        Ok(Report {
            outputs: outputs_from_history(&self.history, batch, steps, self.config.eos),
            finished: done.iter().filter(|&&d| d != 0).count(),
            step_ms: self.step_ms,
        })
    }
}
