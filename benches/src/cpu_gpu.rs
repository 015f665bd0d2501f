//! The measurements of the chapter "CPU and GPU": a launch only queues work,
//! launch cost against kernel time, T_wall ≈ max(ΣCPU, ΣGPU), and how (not)
//! to time GPU work.
//!
//! Each function returns numbers; the examples `cpu_gpu_*` print them, and
//! the chapter includes the code from here.

use crate::Summary;
use gpu::{Decoder, DecoderConfig, Device, Event, Result, Stream};
use std::time::Duration;

fn ns(d: Duration) -> f64 {
    d.as_nanos() as f64
}

/// What queuing `count` kernels of `kernel` each costs.
#[derive(Clone, Copy, Debug)]
pub struct Enqueue {
    /// CPU time of each launch, ns.
    pub launch: Summary,
    /// CPU time of the whole launch loop, ns.
    pub loop_ns: f64,
    /// GPU time of the kernels, from events, ns.
    pub gpu_ns: f64,
    /// How long `synchronize` then blocked the CPU, ns.
    pub sync_ns: f64,
}

// ANCHOR: enqueue
/// Launches `count` spins of `kernel` and times the CPU and the GPU.
pub fn enqueue(
    device: &Device,
    stream: &Stream,
    kernel: Duration,
    count: usize,
) -> Result<Enqueue> {
    let (start, end) = (device.new_event()?, device.new_event()?);
    start.record(stream)?;
    let loop_start = device.now();
    let mut launches = Vec::new();
    for _ in 0..count {
        let t = device.now();
        stream.spin(kernel)?; // queued: returns at once
        launches.push(ns(device.now() - t));
    }
    let loop_ns = ns(device.now() - loop_start);
    end.record(stream)?;
    let t = device.now();
    stream.synchronize()?; // the CPU waits here for the GPU to catch up
    let sync_ns = ns(device.now() - t);
    Ok(Enqueue {
        launch: Summary::of(launches),
        loop_ns,
        gpu_ns: f64::from(start.elapsed_ms(&end)?) * 1e6,
        sync_ns,
    })
}
// ANCHOR_END: enqueue

/// `count` kernels of one size: CPU to submit, GPU to run, wall time.
#[derive(Clone, Copy, Debug)]
pub struct Pipeline {
    /// The kernel's requested time (a spin), ns.
    pub kernel_ns: f64,
    /// ΣCPU: the CPU time of the launch loop, ns.
    pub cpu_ns: f64,
    /// ΣGPU: the kernels back to back, every launch already queued, ns.
    pub gpu_ns: f64,
    /// From the first launch until `synchronize` returned, launches not
    /// queued ahead, ns.
    pub wall_ns: f64,
}

impl Pipeline {
    /// Launch-bound when the CPU's sum is the larger one.
    pub fn launch_bound(&self) -> bool {
        self.cpu_ns > self.gpu_ns
    }
}

// ANCHOR: pipeline
/// ΣGPU with every launch queued behind a gate (so the GPU never waits for
/// the CPU), then ΣCPU and the wall time of the same loop on an idle GPU.
pub fn pipeline(
    device: &Device,
    stream: &Stream,
    kernel: Duration,
    count: usize,
) -> Result<Pipeline> {
    let (start, end) = (device.new_event()?, device.new_event()?);
    stream.spin(Duration::from_millis(5))?; // the gate: queue everything first
    start.record(stream)?;
    for _ in 0..count {
        stream.spin(kernel)?;
    }
    end.record(stream)?;
    let gpu_ns = f64::from(start.elapsed_ms(&end)?) * 1e6;

    let t0 = device.now();
    for _ in 0..count {
        stream.spin(kernel)?;
    }
    let cpu_ns = ns(device.now() - t0);
    stream.synchronize()?;
    let wall_ns = ns(device.now() - t0);
    Ok(Pipeline {
        kernel_ns: ns(kernel),
        cpu_ns,
        gpu_ns,
        wall_ns,
    })
}
// ANCHOR_END: pipeline

/// Three ways to time the same GPU work.
#[derive(Clone, Debug)]
pub struct Timings {
    /// The GPU time the work asks for, ns.
    pub requested_ns: f64,
    /// A CPU timer around the launches only, ns.
    pub cpu_launches_ns: f64,
    /// A CPU timer from a synchronize before to a synchronize after, ns.
    pub cpu_synced_ns: f64,
    /// Two events around the work, ns.
    pub events_ns: f64,
}

// ANCHOR: timing
/// Times `reps` spins of `kernel` three ways.
pub fn timing(device: &Device, stream: &Stream, kernel: Duration, reps: usize) -> Result<Timings> {
    let work = |s: &Stream| -> Result<()> {
        for _ in 0..reps {
            s.spin(kernel)?;
        }
        Ok(())
    };
    stream.synchronize()?;
    let t = device.now();
    work(stream)?; // wrong: only measures the submission
    let cpu_launches_ns = ns(device.now() - t);

    stream.synchronize()?; // start from an idle GPU
    let t = device.now();
    work(stream)?;
    stream.synchronize()?; // right, if coarse: includes the wake-up
    let cpu_synced_ns = ns(device.now() - t);

    let (start, end) = (device.new_event()?, device.new_event()?);
    start.record(stream)?; // the GPU writes a timestamp when it gets here
    work(stream)?;
    end.record(stream)?;
    let events_ns = f64::from(start.elapsed_ms(&end)?) * 1e6; // blocks until `end`
    Ok(Timings {
        requested_ns: ns(kernel) * reps as f64,
        cpu_launches_ns,
        cpu_synced_ns,
        events_ns,
    })
}
// ANCHOR_END: timing

/// CPU time of four launches of `affine`, a kernel the device has not run
/// before (warm-up costs land on the first), ns.
pub fn first_launches(device: &Device, stream: &Stream) -> Result<Vec<f64>> {
    let x = stream.alloc_zeros::<f32>(1024)?;
    stream.synchronize()?;
    let mut times = Vec::new();
    for _ in 0..4 {
        let t = device.now();
        stream.affine(&x, 2.0, 1.0, &x)?;
        times.push(ns(device.now() - t));
    }
    stream.synchronize()?;
    Ok(times)
}

/// A matmul timed the way the classic benchmark times it.
#[derive(Clone, Copy, Debug)]
pub struct Matmul {
    /// Floating-point operations of one step: 2 · batch · hidden · vocab.
    pub flops: f64,
    /// One event pair around all the timed steps, divided by their count: the mean, ns.
    pub mean_ns: f64,
    /// One event pair per step: each step's own time, ns.
    pub per_step: Summary,
}

// ANCHOR: matmul
/// Times the decoder step, a `batch × hidden` by `hidden × vocab` matmul
/// (then an argmax per row), after `warmup` untimed steps: once with one
/// event pair around `reps` steps, once with a pair around each step.
pub fn matmul(
    device: &Device,
    stream: &Stream,
    (batch, hidden, vocab): (usize, usize, usize),
    warmup: usize,
    reps: usize,
) -> Result<Matmul> {
    let config = DecoderConfig {
        vocab,
        hidden,
        seed: 1,
        step_time: Duration::ZERO, // no padding: the kernel's own time
    };
    let decoder = Decoder::new(stream, config)?;
    let (tokens, next) = (
        stream.alloc_zeros::<i32>(batch)?,
        stream.alloc_zeros(batch)?,
    );
    let step = || stream.decode_step(&decoder, &tokens, &next);
    for _ in 0..warmup {
        step()?; // first-use costs land here, untimed
    }

    // One pair around all repetitions: the total, so only a mean.
    let (start, end) = (device.new_event()?, device.new_event()?);
    start.record(stream)?;
    for _ in 0..reps {
        step()?;
    }
    end.record(stream)?;
    let mean_ns = f64::from(start.elapsed_ms(&end)?) * 1e6 / reps as f64;

    // One pair per repetition: every step's own time, so a median and a spread.
    let pairs: Vec<(Event, Event)> = (0..reps)
        .map(|_| Ok((device.new_event()?, device.new_event()?)))
        .collect::<Result<_>>()?;
    for (start, end) in &pairs {
        start.record(stream)?;
        step()?;
        end.record(stream)?;
    }
    let times = pairs
        .iter()
        .map(|(start, end)| Ok(f64::from(start.elapsed_ms(end)?) * 1e6))
        .collect::<Result<Vec<f64>>>()?;
    Ok(Matmul {
        flops: 2.0 * (batch * hidden * vocab) as f64,
        mean_ns,
        per_step: Summary::of(times),
    })
}
// ANCHOR_END: matmul

#[cfg(test)]
mod tests {
    use super::*;
    use gpu::Backend;

    fn device() -> (Device, Stream) {
        let device = Device::open(Backend::Virtual).unwrap();
        let stream = device.new_stream().unwrap();
        (device, stream)
    }

    #[test]
    fn launches_return_before_the_gpu_runs_them() {
        let (device, stream) = device();
        let e = enqueue(&device, &stream, Duration::from_millis(5), 10).unwrap();
        assert!(e.loop_ns < 1e6, "ten launches took {} ns", e.loop_ns);
        assert!(e.gpu_ns >= 50e6 && e.sync_ns > 45e6, "{e:?}");
    }

    #[test]
    fn small_kernels_are_launch_bound_and_large_ones_compute_bound() {
        let (device, stream) = device();
        let small = pipeline(&device, &stream, Duration::ZERO, 200).unwrap();
        let large = pipeline(&device, &stream, Duration::from_micros(100), 50).unwrap();
        assert!(small.launch_bound() && !large.launch_bound());
        for p in [small, large] {
            let bound = p.cpu_ns.max(p.gpu_ns);
            assert!(p.wall_ns >= bound && p.wall_ns < 1.1 * bound, "{p:?}");
        }
    }

    #[test]
    fn a_matmul_is_timed_by_its_mean_and_its_median() {
        let (device, stream) = device();
        let m = matmul(&device, &stream, (16, 64, 1024), 1, 5).unwrap();
        assert_eq!(m.flops, 2.0 * 16.0 * 64.0 * 1024.0);
        let s = m.per_step;
        assert!(
            m.mean_ns > 0.0 && s.min <= s.median && s.median <= s.max,
            "{m:?}"
        );
        // The virtual GPU's steps all cost the same, and each takes longer
        // than its launch, so mean and median agree.
        assert!((m.mean_ns - s.median).abs() <= 0.02 * s.median, "{m:?}");
    }

    #[test]
    fn a_cpu_timer_around_launches_sees_only_the_submission() {
        let (device, stream) = device();
        let t = timing(&device, &stream, Duration::from_millis(2), 10).unwrap();
        assert!(t.cpu_launches_ns < 0.01 * t.requested_ns, "{t:?}");
        assert!(
            t.events_ns >= t.requested_ns && t.cpu_synced_ns >= t.events_ns,
            "{t:?}"
        );
    }
}
