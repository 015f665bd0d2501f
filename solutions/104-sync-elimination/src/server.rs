//! The serving loop, without hidden sync points.
//!
//! Between two log lines the CPU never waits for the GPU: inputs go through
//! pinned buffers on the copy stream, an event orders them before the
//! compute stream, the scratch buffer and every counter live on the GPU for
//! the whole run, and the batch keeps its shape (finished requests stay in
//! it, masked by their done flags). Once per window of `log_every` steps the
//! CPU waits for one event: that single sync reads the metrics
//! (correctness), frees the window's input buffers for reuse (lifetime) and
//! keeps the CPU at most one window ahead of the GPU (backpressure). Step
//! times come from events, read after the run.

use crate::{Config, LogLine, Report, outputs_from_history};
use gpu::{Decoder, Device, DeviceBuffer, Event, PinnedBuffer, Result, Stream};

/// The server: a batch of requests decoded one step at a time.
pub struct Server<'d> {
    device: Device,
    compute: Stream,
    copy: Stream,
    decoder: &'d Decoder,
    config: Config,
    /// Step `t`'s input tokens go through slot `t % log_every` of both rings.
    pinned_inputs: Vec<PinnedBuffer<i32>>,
    inputs: Vec<DeviceBuffer<i32>>,
    /// Recorded on the copy stream after each input copy.
    copied: Event,
    /// The decoder's output: one token per request (allocated once).
    scratch: DeviceBuffer<i32>,
    /// Done flags, one per request, set on the GPU and never read by the CPU.
    done: DeviceBuffer<i32>,
    /// Every step's predictions, step after step.
    history: DeviceBuffer<i32>,
    /// `[tokens generated in this window, finished requests]`, on the GPU.
    metrics: DeviceBuffer<i32>,
    /// Where the metrics land once a window.
    pinned_metrics: PinnedBuffer<i32>,
    /// Recorded on the compute stream before step 0, and after each step.
    started: Event,
    step_ends: Vec<Event>,
    logs: Vec<LogLine>,
    step: usize,
}

impl<'d> Server<'d> {
    /// A server for `config` on `compute` (the model) and `copy` (inputs).
    pub fn new(
        decoder: &'d Decoder,
        compute: &Stream,
        copy: &Stream,
        config: Config,
    ) -> Result<Self> {
        let device = compute.device().clone();
        let batch = config.batch;
        let ring = config.log_every;
        let pinned_inputs = (0..ring)
            .map(|_| device.alloc_pinned::<i32>(batch))
            .collect::<Result<_>>()?;
        let inputs = (0..ring)
            .map(|_| copy.alloc_zeros::<i32>(batch))
            .collect::<Result<_>>()?;
        let server = Self {
            copied: device.new_event()?,
            scratch: compute.alloc_zeros(batch)?,
            done: compute.alloc_zeros(batch)?,
            history: compute.alloc_zeros(batch * config.max_steps)?,
            metrics: compute.alloc_zeros(2)?,
            pinned_metrics: device.alloc_pinned(2)?,
            started: device.new_event()?,
            step_ends: Vec::with_capacity(config.max_steps),
            logs: Vec::new(),
            step: 0,
            pinned_inputs,
            inputs,
            device,
            compute: compute.clone(),
            copy: copy.clone(),
            decoder,
            config,
        };
        // The buffers were zeroed on their streams: order that before step 0.
        server.compute.wait_event(&server.copy.record_event()?)?;
        Ok(server)
    }

    /// Runs one step on `tokens`, the step's input token of every request.
    pub fn step(&mut self, tokens: &[i32]) -> Result<()> {
        let (t, batch) = (self.step, self.config.batch);
        assert_eq!(tokens.len(), batch, "`step` takes one token per request");
        assert!(
            t < self.config.max_steps,
            "more steps than `Config::max_steps`"
        );
        if t == 0 {
            self.started.record(&self.compute)?;
        }
        self.device.host_work(self.config.host_work); // the scheduler
        let slot = t % self.config.log_every;
        self.pinned_inputs[slot].write(tokens)?;
        self.copy
            .copy_from_pinned(&self.pinned_inputs[slot], &self.inputs[slot])?;
        self.copied.record(&self.copy)?;
        self.compute.wait_event(&self.copied)?;
        let c = &self.compute;
        c.decode_step(self.decoder, &self.inputs[slot], &self.scratch)?;
        c.count_eq(&self.done, 0, self.metrics.slice(0..1))?;
        c.flag_eq(&self.scratch, self.config.eos, &self.done)?;
        c.copy(
            &self.scratch,
            self.history.slice(t * batch..(t + 1) * batch),
        )?;
        let window_ends = (t + 1).is_multiple_of(self.config.log_every);
        if window_ends {
            c.count_eq(&self.done, 1, self.metrics.slice(1..2))?;
            c.copy_to_pinned(&self.metrics, &self.pinned_metrics)?;
            c.fill(&self.metrics, 0)?;
        }
        let end = c.record_event()?;
        if window_ends {
            end.synchronize()?; // the one sync of the window
            let [tokens, finished] = self.pinned_metrics.to_vec()[..] else {
                unreachable!("two metrics")
            };
            self.logs.push(LogLine {
                step: t,
                tokens: tokens as u32,
                finished: finished as u32,
            });
        }
        self.step_ends.push(end);
        self.step += 1;
        Ok(())
    }

    /// Waits for the GPU and reports the run (after the loop: syncs here are
    /// fine).
    pub fn finish(self) -> Result<Report> {
        let (steps, batch) = (self.step, self.config.batch);
        self.compute.synchronize()?;
        let history = self.compute.to_vec(self.history.slice(0..steps * batch))?;
        let mut step_ms = Vec::with_capacity(steps);
        let mut previous = &self.started;
        for end in &self.step_ends {
            step_ms.push(f64::from(previous.elapsed_ms(end)?));
            previous = end;
        }
        Ok(Report {
            outputs: outputs_from_history(&history, batch, steps, self.config.eos),
            logs: self.logs,
            step_ms,
        })
    }
}
