//! A small serving loop, with a hidden sync in every step or one wait per
//! window: the hidden-syncs chapter's step-time measurement and its
//! timeline figure.
//!
//! Each step does the scheduler's CPU work, runs a decoder step and counts
//! the tokens generated on the GPU. [`Sync::EveryStep`] reads the count to
//! the host after every step (the `.item()` habit); [`Sync::PerWindow`]
//! accumulates it on the GPU and reads it once per window, through pinned
//! memory and one event.

use gpu::{Decoder, DecoderConfig, Device, DeviceBuffer, PinnedBuffer, Result, Segment, Stream};
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
    Ok(run_with(s, decoder, config, &Syncs::of(sync))?.times)
}

/// Runs the loop with `syncs` on `s`: the same loop as [`run`], with the
/// habits of [`Syncs`] that are on; it also marks the trace before every
/// step and times each step with a CPU timer.
pub fn run_with(
    s: &Stream,
    decoder: &Decoder,
    config: &LoopConfig,
    syncs: &Syncs,
) -> Result<SyncedRun> {
    let device = s.device().clone();
    let tokens = s.alloc_zeros::<i32>(config.batch)?;
    let out = s.alloc_zeros::<i32>(config.batch)?;
    let limit_ms = decoder_alone(s, decoder, &tokens, &out)?;
    let done = s.alloc_zeros::<i32>(config.batch)?;
    let counter = s.alloc_zeros::<i32>(1)?;
    let pinned = device.alloc_pinned::<i32>(1)?;
    let mut habits = Habits::new(s, config, syncs)?;
    s.synchronize()?;
    let sync = if syncs.item {
        Sync::EveryStep
    } else {
        Sync::PerWindow
    };
    let (mut total, mut marks, mut cpu_ns) = (0i64, Vec::new(), Vec::new());
    let mut steady_start = None;
    for t in 0..config.steps {
        if t == config.window {
            steady_start = Some(s.record_event()?);
        }
        marks.push(device.trace_mark());
        let started = device.now();
        habits.before_step(&tokens, &done)?;
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
        habits.after_step(&out)?;
        cpu_ns.push((device.now() - started).as_nanos() as f64);
    }
    marks.push(device.trace_mark());
    let end = s.record_event()?;
    let start = steady_start.expect("more steps than one window");
    let steady = (config.steps - config.window) as f64;
    let step_ms = f64::from(start.elapsed_ms(&end)?) / steady;
    let cpu_timer_ms = crate::Summary::of(cpu_ns[config.window..].to_vec()).median / 1e6;
    Ok(SyncedRun {
        times: LoopTimes {
            step_ms,
            limit_ms,
            tokens: total,
        },
        marks,
        cpu_timer_ms,
    })
}

/// The six hidden syncs of exercise 104's starter, each a habit of real
/// serving code, to switch on in this loop one by one (the chapter's live
/// timeline). All off, the loop is the one of [`run`] with
/// [`Sync::PerWindow`]; only [`Syncs::item`] on, with [`Sync::EveryStep`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Syncs {
    /// 1. The count read to the host after every step (`.item()`), instead
    ///    of once per window through pinned memory.
    pub item: bool,
    /// 2. Each step's input tokens sent from a `Vec` (pageable memory).
    pub pageable_inputs: bool,
    /// 3. A scratch buffer allocated and freed with raw segments every step
    ///    (`cuMemFree` waits for the device).
    pub raw_scratch: bool,
    /// 4. The done flags read to the host every step, to size the next batch.
    pub read_done: bool,
    /// 5. The inputs sent on a copy stream that the CPU waits for
    ///    (`copy.synchronize()`) before the compute stream may read them.
    pub cpu_ordered_copy: bool,
    /// 6. The step timed with a CPU timer around its calls, which measures
    ///    the submission unless the step waits.
    pub cpu_timer: bool,
}

impl Syncs {
    /// The loop of [`run`] with `sync`.
    pub fn of(sync: Sync) -> Self {
        Self {
            item: sync == Sync::EveryStep,
            ..Self::default()
        }
    }
}

/// What [`run_with`] measured.
#[derive(Clone, Debug)]
pub struct SyncedRun {
    /// Step time (events), the decoder alone, and the tokens counted.
    pub times: LoopTimes,
    /// The trace mark taken before each step, then one after the last.
    pub marks: Vec<u64>,
    /// The median step after the first window by a CPU timer around each
    /// step's calls, in ms: what the loop reports with [`Syncs::cpu_timer`]
    /// (the submission, unless every step waits).
    pub cpu_timer_ms: f64,
}

/// The habits of [`Syncs`] that are on, with what they need.
struct Habits {
    syncs: Syncs,
    /// The compute stream.
    s: Stream,
    /// The copy stream of [`Syncs::cpu_ordered_copy`].
    copy: Option<Stream>,
    /// The inputs in pageable memory, for [`Syncs::pageable_inputs`].
    host: Vec<i32>,
    /// The inputs in pinned memory, for a copy stream fed from pinned memory.
    pinned: Option<PinnedBuffer<i32>>,
    /// This step's raw scratch segment.
    scratch: Option<Segment>,
}

impl Habits {
    /// Sets up what the habits that are on need (nothing when none is).
    fn new(s: &Stream, config: &LoopConfig, syncs: &Syncs) -> Result<Self> {
        let device = s.device();
        let copy = syncs
            .cpu_ordered_copy
            .then(|| device.new_stream())
            .transpose()?;
        let pinned = (syncs.cpu_ordered_copy && !syncs.pageable_inputs)
            .then(|| device.alloc_pinned::<i32>(config.batch))
            .transpose()?;
        Ok(Self {
            syncs: *syncs,
            s: s.clone(),
            copy,
            host: vec![0; config.batch],
            pinned,
            scratch: None,
        })
    }

    /// Before the step: send the inputs, allocate the scratch, read the flags.
    fn before_step(&mut self, tokens: &DeviceBuffer<i32>, done: &DeviceBuffer<i32>) -> Result<()> {
        if self.syncs.pageable_inputs || self.syncs.cpu_ordered_copy {
            self.send_inputs(tokens)?;
        }
        if self.syncs.raw_scratch {
            let bytes = tokens.len() * size_of::<i32>();
            self.scratch = Some(self.s.device().alloc_segment(bytes)?);
        }
        if self.syncs.read_done {
            let flags = self.s.to_vec(done)?; // a data-dependent batch size
            let _active = flags.iter().rposition(|&d| d == 0).map_or(0, |r| r + 1);
        }
        Ok(())
    }

    /// The inputs into `tokens`: in stream order on the compute stream, or
    /// on the copy stream with a CPU wait after it.
    fn send_inputs(&self, tokens: &DeviceBuffer<i32>) -> Result<()> {
        let Some(copy) = &self.copy else {
            return self.s.copy_from_host(&self.host, tokens);
        };
        copy.wait_event(&self.s.record_event()?)?; // the last step has read its inputs
        match &self.pinned {
            Some(pinned) => copy.copy_from_pinned(pinned, tokens)?,
            None => copy.copy_from_host(&self.host, tokens)?,
        }
        copy.synchronize() // the habit: a CPU wait orders the two streams
    }

    /// After the step: the predictions into the scratch, which is freed.
    fn after_step(&mut self, out: &DeviceBuffer<i32>) -> Result<()> {
        let Some(scratch) = self.scratch.take() else {
            return Ok(());
        };
        self.s.copy(out, scratch.view::<i32>(0, out.len())?)?;
        self.s.device().free_segment(scratch) // waits for the device
    }
}

/// GPU time of one decoder step, alone on the stream.
fn decoder_alone(
    s: &Stream,
    decoder: &Decoder,
    tokens: &DeviceBuffer<i32>,
    out: &DeviceBuffer<i32>,
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
