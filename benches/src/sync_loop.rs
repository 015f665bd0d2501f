//! A small serving loop, with a hidden sync in every step or one wait per
//! window: the hidden-syncs chapter's step-time measurement and its
//! timeline figure.
//!
//! Each step does the scheduler's CPU work, runs a decoder step and counts
//! the tokens generated on the GPU. [`Sync::EveryStep`] reads the count to
//! the host after every step (the `.item()` habit); [`Sync::PerWindow`]
//! accumulates it on the GPU and reads it once per window, through pinned
//! memory and one event.

use gpu::{Decoder, DecoderConfig, Device, Result, Stream};
use std::time::Duration;

/// Where the loop waits for the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sync {
    /// A device scalar read to the host after every step.
    EveryStep,
    /// One event waited for at the end of each window.
    PerWindow,
}

/// The loop's shape.
#[derive(Clone, Debug)]
pub struct LoopConfig {
    /// Requests in the batch.
    pub batch: usize,
    /// GPU time of a decoder step.
    pub step_time: Duration,
    /// The scheduler's CPU time per step.
    pub host_work: Duration,
    /// Steps per window (per log line).
    pub window: usize,
    /// Steps to run.
    pub steps: usize,
}

impl LoopConfig {
    /// The loop of exercise 104: 128 requests, 2 ms of GPU and 0.5 ms of
    /// CPU a step, a window of 8, six windows.
    pub fn exercise() -> Self {
        Self {
            batch: 128,
            step_time: Duration::from_millis(2),
            host_work: Duration::from_micros(500),
            window: 8,
            steps: 48,
        }
    }
}

/// What one run measured, on the GPU's clock (events).
#[derive(Clone, Copy, Debug)]
pub struct LoopTimes {
    /// Mean time of a step after the first window, in ms.
    pub step_ms: f64,
    /// A decoder step alone, in ms: the GPU-bound limit.
    pub limit_ms: f64,
    /// Tokens counted over the run (the same for both kinds of loop).
    pub tokens: i64,
}

/// The decoder of the loop.
pub fn decoder(stream: &Stream, config: &LoopConfig) -> Result<Decoder> {
    let decoder = Decoder::new(
        stream,
        DecoderConfig {
            vocab: 256,
            hidden: 32,
            seed: 104,
            step_time: config.step_time,
        },
    )?;
    stream.synchronize()?;
    Ok(decoder)
}

/// Runs the loop on `s` and times it with events.
pub fn run(s: &Stream, decoder: &Decoder, config: &LoopConfig, sync: Sync) -> Result<LoopTimes> {
    let device = s.device().clone();
    let tokens = s.alloc_zeros::<i32>(config.batch)?;
    let out = s.alloc_zeros::<i32>(config.batch)?;
    let limit_ms = decoder_alone(s, decoder, &tokens, &out)?;
    let done = s.alloc_zeros::<i32>(config.batch)?;
    let counter = s.alloc_zeros::<i32>(1)?;
    let pinned = device.alloc_pinned::<i32>(1)?;
    s.synchronize()?;
    let mut total = 0i64;
    let mut steady_start = None;
    for t in 0..config.steps {
        if t == config.window {
            steady_start = Some(s.record_event()?);
        }
        // ANCHOR: step
        device.host_work(config.host_work); // the scheduler
        s.decode_step(decoder, &tokens, &out)?;
        s.count_eq(&done, 0, &counter)?; // tokens generated, counted on the GPU
        match sync {
            Sync::EveryStep => {
                total += i64::from(s.to_vec(&counter)?[0]); // `.item()`: waits every step
                s.fill(&counter, 0)?;
            }
            Sync::PerWindow if (t + 1).is_multiple_of(config.window) => {
                s.copy_to_pinned(&counter, &pinned)?;
                s.fill(&counter, 0)?;
                s.record_event()?.synchronize()?; // one wait per window
                total += i64::from(pinned.to_vec()[0]);
            }
            Sync::PerWindow => {}
        }
        // ANCHOR_END: step
    }
    let end = s.record_event()?;
    let start = steady_start.expect("more steps than one window");
    let steady = (config.steps - config.window) as f64;
    let step_ms = f64::from(start.elapsed_ms(&end)?) / steady;
    Ok(LoopTimes {
        step_ms,
        limit_ms,
        tokens: total,
    })
}

/// GPU time of one decoder step, alone on the stream.
fn decoder_alone(
    s: &Stream,
    decoder: &Decoder,
    tokens: &gpu::DeviceBuffer<i32>,
    out: &gpu::DeviceBuffer<i32>,
) -> Result<f64> {
    s.decode_step(decoder, tokens, out)?;
    let start = s.record_event()?;
    for _ in 0..8 {
        s.decode_step(decoder, tokens, out)?;
    }
    let end = s.record_event()?;
    Ok(f64::from(start.elapsed_ms(&end)?) / 8.0)
}

/// Both loops on `device`, as the chapter prints them.
pub fn report(device: &Device, config: &LoopConfig) -> Result<String> {
    let s = device.new_stream()?;
    let decoder = decoder(&s, config)?;
    let mut text = format!(
        "a loop of {} steps: {} requests, {:.1} ms of CPU work and a {:.1} ms decoder step each\n",
        config.steps,
        config.batch,
        config.host_work.as_secs_f64() * 1e3,
        config.step_time.as_secs_f64() * 1e3
    );
    for (sync, what) in [
        (Sync::EveryStep, "a scalar read every step (`.item()`)"),
        (Sync::PerWindow, "one wait per window of 8 steps"),
    ] {
        let times = run(&s, &decoder, config, sync)?;
        text += &format!(
            "  {what:<40} {:.3} ms a step, {:+.1}% over the decoder alone ({:.3} ms)\n",
            times.step_ms,
            (times.step_ms / times.limit_ms - 1.0) * 100.0,
            times.limit_ms
        );
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu::{Backend, DeviceOptions};

    #[test]
    fn a_wait_per_step_costs_the_cpu_work_and_a_wait_per_window_does_not() {
        let device = Device::with_options(DeviceOptions {
            backend: Backend::Virtual,
            quiet: true,
            ..DeviceOptions::default()
        })
        .unwrap();
        let s = device.new_stream().unwrap();
        let config = LoopConfig::exercise();
        let decoder = decoder(&s, &config).unwrap();
        let every = run(&s, &decoder, &config, Sync::EveryStep).unwrap();
        let window = run(&s, &decoder, &config, Sync::PerWindow).unwrap();
        assert_eq!(
            every.tokens, window.tokens,
            "both loops count the same tokens"
        );
        assert_eq!(every.tokens, (config.steps * config.batch) as i64);
        assert!(every.step_ms > every.limit_ms * 1.2, "{every:?}");
        assert!(window.step_ms < window.limit_ms * 1.05, "{window:?}");
    }
}
