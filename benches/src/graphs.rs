//! The CUDA graphs chapter's measurements: what a graph saves, and what not.
//!
//! 1. 200 empty kernels, launched one by one and as one captured graph: the
//!    CPU's submit time and the time until the GPU has run them all.
//! 2. The decode step of exercise 103 (64 `affine` layers, batches of 1 to
//!    16 rows), eager against replayed: the CPU's submit time per step, the
//!    GPU's (events behind a gate), and a loop of steps back to back.
//! 3. The setup: allocating, warming up and capturing the five graphs.
//! 4. What a capture refuses: a `synchronize` inside it.
//! 5. Two chains of kernels captured on one stream and across two (`fork`).
//!
//! CPU times come from the device's clock (modelled on the virtual GPU), GPU
//! times from events.
//!
//! Over 400 lines: one `Report` of every measurement, whose `Display` is the
//! measurement file the book includes.

pub mod fork;

use crate::{Summary, duration_text};
use gpu::{Device, Stream, View};
use graph_buffers::{MAX_ROWS, Model, Runner, WIDTH};
use std::fmt::{self, Write as _};
use std::time::Duration;

/// Errors of the benchmark: the device's or the runner's.
pub type Error = Box<dyn std::error::Error>;

/// How much to measure.
#[derive(Clone, Debug)]
pub struct Config {
    /// Repetitions of each measurement (after one not counted).
    pub reps: usize,
    /// Steps in the back-to-back loop.
    pub loop_steps: usize,
}

impl Config {
    /// The benchmark as the book reports it: about a second.
    pub fn full() -> Self {
        Self {
            reps: 20,
            loop_steps: 200,
        }
    }

    /// A small run, for tests.
    pub fn quick() -> Self {
        Self {
            reps: 3,
            loop_steps: 10,
        }
    }
}

/// The batch sizes the decode measurements cycle through.
const SIZES: [usize; 8] = [1, 3, 16, 6, 2, 11, 8, 5];

/// A submit time and a completion time, over repetitions, in nanoseconds.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// CPU time of the calls that queue the work.
    pub submit: Summary,
    /// From the first call until the GPU has finished (CPU clock).
    pub total: Summary,
}

/// Everything [`run`] measures.
#[derive(Clone, Debug)]
pub struct Report {
    /// The provenance header.
    pub header: String,
    /// 200 empty kernels, eager.
    pub empty_eager: Timing,
    /// 200 empty kernels, one graph launch.
    pub empty_graph: Timing,
    /// A decode step, eager: 64 launches.
    pub step_eager: Timing,
    /// A decode step replayed: copy in, padding, graph launch, copy out.
    pub step_graph: Timing,
    /// GPU time of an eager step behind a gate (events), ns.
    pub gpu_eager: Summary,
    /// GPU time of a replayed step behind a gate (events), ns.
    pub gpu_graph: Summary,
    /// Steps in the back-to-back loop.
    pub loop_steps: usize,
    /// The loop's time per step, eager and replayed, ns.
    pub loop_eager: f64,
    /// See `loop_eager`.
    pub loop_graph: f64,
    /// `Runner::new`: buffers, warm-up, five captures, ns.
    pub setup: f64,
    /// The error of a `synchronize` inside a capture.
    pub sync_in_capture: String,
    /// The error of `end_capture` after it.
    pub end_after_sync: String,
    /// Two chains of kernels, captured on one stream and across two.
    pub fork: fork::ForkJoin,
}

fn ns(d: Duration) -> f64 {
    d.as_nanos() as f64
}

/// Times `submit` (CPU) and the time until `stream` is idle again, starting
/// from an idle stream, `reps` times after one warm-up.
fn timed(
    device: &Device,
    stream: &Stream,
    reps: usize,
    mut submit: impl FnMut(usize) -> Result<(), Error>,
) -> Result<Timing, Error> {
    let (mut cpu, mut total) = (Vec::new(), Vec::new());
    for rep in 0..=reps {
        stream.synchronize()?;
        let start = device.now();
        submit(rep)?;
        let queued = device.now();
        stream.synchronize()?;
        if rep > 0 {
            cpu.push(ns(queued - start));
            total.push(ns(device.now() - start));
        }
    }
    Ok(Timing {
        submit: Summary::of(cpu),
        total: Summary::of(total),
    })
}

/// A step of `count` kernels of GPU time `length` each, launched one by one
/// or captured once and replayed as one graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelStep {
    /// Kernels in the step.
    pub count: usize,
    /// GPU time of each (a `spin`; zero is an empty kernel).
    pub length: Duration,
    /// Replayed from a graph, else launched eagerly.
    pub replay: bool,
}

// ANCHOR: empty_kernels
/// Submits `step` `reps` times (after one warm-up) from an idle stream; a
/// replayed step is captured first, once.
pub fn kernel_step(
    device: &Device,
    stream: &Stream,
    step: &KernelStep,
    reps: usize,
) -> Result<Timing, Error> {
    let kernels = |s: &Stream| (0..step.count).try_for_each(|_| s.spin(step.length));
    if !step.replay {
        return timed(device, stream, reps, |_| Ok(kernels(stream)?));
    }
    stream.begin_capture()?;
    kernels(stream)?;
    let graph = stream.end_capture()?;
    timed(device, stream, reps, |_| Ok(graph.launch()?))
}

/// 200 empty kernels, eager and as one graph.
fn empty_kernels(device: &Device, stream: &Stream, reps: usize) -> Result<(Timing, Timing), Error> {
    let step = |replay| KernelStep {
        count: 200,
        length: Duration::ZERO,
        replay,
    };
    let eager = kernel_step(device, stream, &step(false), reps)?;
    let replay = kernel_step(device, stream, &step(true), reps)?;
    Ok((eager, replay))
}
// ANCHOR_END: empty_kernels

/// The decode step's buffers: one batch of up to 16 rows in and out, and the
/// eager stack's scratch.
struct Step {
    model: Model,
    input: gpu::DeviceBuffer<f32>,
    output: gpu::DeviceBuffer<f32>,
    scratch: [gpu::DeviceBuffer<f32>; 2],
}

impl Step {
    fn new(stream: &Stream) -> Result<Self, Error> {
        let len = MAX_ROWS * WIDTH;
        let input = stream.alloc_zeros::<f32>(len)?;
        stream.fill(&input, 0.5)?;
        Ok(Self {
            model: Model::new(),
            input,
            output: stream.alloc_zeros(len)?,
            scratch: [stream.alloc_zeros(len)?, stream.alloc_zeros(len)?],
        })
    }

    fn views(&self, rows: usize) -> (View<f32>, View<f32>, [View<f32>; 2]) {
        let n = rows * WIDTH;
        let s = [self.scratch[0].slice(0..n), self.scratch[1].slice(0..n)];
        (self.input.slice(0..n), self.output.slice(0..n), s)
    }

    // ANCHOR: eager_step
    /// One step run eagerly: every layer is a launch.
    fn eager(&self, stream: &Stream, rows: usize) -> Result<(), Error> {
        let (x, y, scratch) = self.views(rows);
        Ok(self.model.forward(stream, x, y, scratch)?)
    }
    // ANCHOR_END: eager_step

    // ANCHOR: replayed_step
    /// One step replayed: copy in, padding, one graph launch, copy out.
    fn replayed(&self, runner: &mut Runner, rows: usize) -> Result<(), Error> {
        let (x, y, _) = self.views(rows);
        Ok(runner.decode(&[x], &[y])?)
    }
    // ANCHOR_END: replayed_step
}

/// GPU time of `step` measured with events while a 5 ms gate holds the
/// stream: the whole step is queued before the GPU reaches it.
pub(crate) fn gpu_time(
    stream: &Stream,
    reps: usize,
    mut step: impl FnMut(usize) -> Result<(), Error>,
) -> Result<Summary, Error> {
    let device = stream.device();
    let (start, end) = (device.new_event()?, device.new_event()?);
    let mut samples = Vec::new();
    for rep in 0..=reps {
        stream.spin(Duration::from_millis(5))?;
        start.record(stream)?;
        step(rep)?;
        end.record(stream)?;
        let ms = start.elapsed_ms(&end)?;
        if rep > 0 {
            samples.push(f64::from(ms) * 1e6);
        }
    }
    Ok(Summary::of(samples))
}

/// The time per step of `steps` steps queued back to back, from an idle
/// stream until the last is done.
fn back_to_back(
    device: &Device,
    stream: &Stream,
    steps: usize,
    mut step: impl FnMut(usize) -> Result<(), Error>,
) -> Result<f64, Error> {
    stream.synchronize()?;
    let start = device.now();
    for k in 0..steps {
        step(k)?;
    }
    stream.synchronize()?;
    Ok(ns(device.now() - start) / steps as f64)
}

// ANCHOR: sync_in_capture
/// The errors a `synchronize` inside a capture gives, and `end_capture` after it.
fn sync_in_capture(stream: &Stream) -> Result<(String, String), Error> {
    stream.begin_capture()?;
    stream.spin(Duration::ZERO)?;
    let sync = match stream.synchronize() {
        Err(e) => e.to_string(),
        Ok(()) => "accepted (unexpected)".into(),
    };
    let end = match stream.end_capture() {
        Err(e) => e.to_string(),
        Ok(_) => "a graph (unexpected)".into(),
    };
    Ok((sync, end))
}
// ANCHOR_END: sync_in_capture

/// Runs every measurement on `device`; `header` is the provenance the
/// report starts with ([`crate::header`]).
pub fn run(device: &Device, header: &str, config: &Config) -> Result<Report, Error> {
    let stream = device.new_stream()?;
    let reps = config.reps;
    let (empty_eager, empty_graph) = empty_kernels(device, &stream, reps)?;
    let step = Step::new(&stream)?;
    stream.synchronize()?;
    let start = device.now();
    let mut runner = Runner::new(&stream, &step.model)?;
    stream.synchronize()?;
    let setup = ns(device.now() - start);
    let rows = |k: usize| SIZES[k % SIZES.len()];
    let step_eager = timed(device, &stream, reps, |k| step.eager(&stream, rows(k)))?;
    let step_graph = timed(device, &stream, reps, |k| {
        step.replayed(&mut runner, rows(k))
    })?;
    let gpu_eager = gpu_time(&stream, reps, |k| step.eager(&stream, rows(k)))?;
    let gpu_graph = gpu_time(&stream, reps, |k| step.replayed(&mut runner, rows(k)))?;
    let n = config.loop_steps;
    let loop_eager = back_to_back(device, &stream, n, |k| step.eager(&stream, rows(k)))?;
    let loop_graph = back_to_back(device, &stream, n, |k| step.replayed(&mut runner, rows(k)))?;
    let (sync_in_capture, end_after_sync) = sync_in_capture(&device.new_stream()?)?;
    let fork = fork::measure(&stream, &device.new_stream()?, reps)?;
    Ok(Report {
        header: header.to_string(),
        empty_eager,
        empty_graph,
        step_eager,
        step_graph,
        gpu_eager,
        gpu_graph,
        loop_steps: n,
        loop_eager,
        loop_graph,
        setup,
        sync_in_capture,
        end_after_sync,
        fork,
    })
}

/// `median (min–max)` of nanosecond samples.
pub(crate) fn range(s: &Summary) -> String {
    format!(
        "{} ({}–{})",
        duration_text(s.median),
        duration_text(s.min),
        duration_text(s.max)
    )
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = self.header.clone();
        let ratio = |a: &Summary, b: &Summary| a.median / b.median.max(1.0);
        let _ = writeln!(out, "\nmedian (min–max) of the repetitions\n");
        let _ = writeln!(out, "200 empty kernels");
        let _ = writeln!(
            out,
            "  eager, 200 launches:   submit {}, total {}",
            range(&self.empty_eager.submit),
            range(&self.empty_eager.total)
        );
        let _ = writeln!(
            out,
            "  one graph launch:      submit {}, total {}",
            range(&self.empty_graph.submit),
            range(&self.empty_graph.total)
        );
        let _ = writeln!(
            out,
            "  submit eager / graph:  {:.0}x\n",
            ratio(&self.empty_eager.submit, &self.empty_graph.submit)
        );
        let _ = writeln!(
            out,
            "decode step of exercise 103 (64 layers, batches of 1 to 16 rows of {WIDTH})"
        );
        let _ = writeln!(
            out,
            "  setup (buffers, warm-up, 5 captures):  {}",
            duration_text(self.setup)
        );
        let _ = writeln!(
            out,
            "  eager, 64 launches:    submit {}, total {}",
            range(&self.step_eager.submit),
            range(&self.step_eager.total)
        );
        let _ = writeln!(
            out,
            "  replayed (3–4 calls):  submit {}, total {}",
            range(&self.step_graph.submit),
            range(&self.step_graph.total)
        );
        let _ = writeln!(
            out,
            "  submit eager / replay: {:.1}x",
            ratio(&self.step_eager.submit, &self.step_graph.submit)
        );
        let _ = writeln!(
            out,
            "  GPU time behind a gate (events): eager {}, replayed {}",
            range(&self.gpu_eager),
            range(&self.gpu_graph)
        );
        let _ = writeln!(
            out,
            "  {} steps back to back, per step: eager {}, replayed {}\n",
            self.loop_steps,
            duration_text(self.loop_eager),
            duration_text(self.loop_graph)
        );
        let _ = writeln!(out, "a synchronize inside a capture");
        let _ = writeln!(out, "  synchronize: {}", self.sync_in_capture);
        let _ = writeln!(out, "  end_capture: {}\n", self.end_after_sync);
        let _ = write!(out, "{}", self.fork);
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replayed_step_submits_faster_and_runs_no_faster_on_the_gpu() {
        let device = Device::open(gpu::Backend::Virtual).unwrap();
        let report = run(&device, "command: test\n", &Config::quick()).unwrap();
        let submit = report.step_eager.submit.median / report.step_graph.submit.median;
        assert!(submit > 5.0, "eager / replay submit is only {submit}");
        let empty = report.empty_eager.submit.median / report.empty_graph.submit.median;
        assert!(
            empty > 50.0,
            "200 kernels: eager / graph submit is only {empty}"
        );
        // The graph saves CPU time; the GPU still runs every kernel, a node
        // at most as slowly as a kernel launched alone.
        assert!(report.gpu_graph.median > report.gpu_eager.median / 3.0);
        assert!(report.gpu_graph.median <= report.gpu_eager.median);
        assert!(report.loop_graph < report.loop_eager);
        assert!(report.sync_in_capture.contains("invalidated"));
        assert!(report.end_after_sync.contains("Stream::synchronize"));
    }
}
