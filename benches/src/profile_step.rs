//! The step that the profiling chapter profiles: a decode step of a small
//! engine, marked with ranges as `benches/python/profile_step.py` marks the
//! same step in PyTorch (`record_function` and NVTX), and what its profile
//! says: per range, the CPU's time and where the GPU ran its work; for the
//! step, its wall time, the GPU's busy time, the longest call and the gaps
//! between kernels.
//!
//! The layers' kernels are [`gpu::Stream::spin`]s of the lengths a small
//! decoder's kernels take (a few µs each at batch 8): every one of them is
//! named `spin` in the trace, as an engine's profile shows the same GEMM
//! kernel in every layer, and only the ranges tell the layers apart. The
//! sampling is the decoder's real step (a matmul and an argmax), and the
//! step ends as engines' steps often do: the CPU reads the sampled tokens
//! into a `Vec`, a copy into pageable memory that waits for all of it.

use crate::duration_text as t;
use gpu::{Decoder, DecoderConfig, Device, DeviceBuffer, Result, Stream, Trace};
use std::fmt::Write as _;
use std::time::Duration;

/// The shape of the step.
#[derive(Clone, Debug)]
pub struct StepShape {
    /// Decoder layers.
    pub layers: usize,
    /// Requests in the batch.
    pub batch: usize,
    /// The embedding lookup's kernel.
    pub embed: Duration,
    /// The attention's kernels: qkv projection, scores, softmax, output projection.
    pub attention: [Duration; 4],
    /// The MLP's kernels: up projection, activation, down projection.
    pub mlp: [Duration; 3],
}

/// The step the chapter shows: 4 layers of 7 kernels, batch 8.
pub fn chapter_step() -> StepShape {
    let us = Duration::from_micros;
    StepShape {
        layers: 4,
        batch: 8,
        embed: us(3),
        attention: [us(8), us(4), us(3), us(6)],
        mlp: [us(10), us(3), us(10)],
    }
}

/// What a step runs on: the stream, the sampler's decoder and the tokens.
pub struct Engine {
    stream: Stream,
    decoder: Decoder,
    tokens: DeviceBuffer<i32>,
    next: DeviceBuffer<i32>,
}

impl Engine {
    /// An engine on a new stream of `device`, its decoder 512 tokens by 128.
    pub fn new(device: &Device, shape: &StepShape) -> Result<Self> {
        let stream = device.new_stream()?;
        let config = DecoderConfig {
            vocab: 512,
            hidden: 128,
            seed: 7,
            step_time: Duration::ZERO,
        };
        let decoder = Decoder::new(&stream, config)?;
        let tokens = stream.alloc_zeros::<i32>(shape.batch)?;
        let next = stream.alloc_zeros::<i32>(shape.batch)?;
        Ok(Self {
            stream,
            decoder,
            tokens,
            next,
        })
    }
}

// ANCHOR: step
/// One decode step, each part in a range: the embedding, every layer's
/// attention and MLP, the sampling, and the read of the tokens.
pub fn step(engine: &Engine, shape: &StepShape) -> Result<Vec<i32>> {
    let (device, stream) = (engine.stream.device(), &engine.stream);
    let _step = device.range("step");
    {
        let _embed = device.range("embed");
        stream.spin(shape.embed)?;
    }
    for layer in 0..shape.layers {
        let _layer = device.range(&format!("layer.{layer}"));
        {
            let _attention = device.range("attention");
            for &kernel in &shape.attention {
                stream.spin(kernel)?;
            }
        }
        let _mlp = device.range("mlp");
        for &kernel in &shape.mlp {
            stream.spin(kernel)?;
        }
    }
    {
        let _sample = device.range("sample");
        stream.decode_step(&engine.decoder, &engine.tokens, &engine.next)?;
    }
    let _read = device.range("read tokens");
    stream.to_vec(&engine.next) // the CPU waits here for the whole step
}
// ANCHOR_END: step

/// The trace of `steps` steps after `warmup` unprofiled ones.
pub fn profile(device: &Device, shape: &StepShape, warmup: usize, steps: usize) -> Result<Trace> {
    let engine = Engine::new(device, shape)?;
    for _ in 0..warmup {
        step(&engine, shape)?;
    }
    device.synchronize()?;
    device.clear_trace();
    for _ in 0..steps {
        step(&engine, shape)?;
    }
    Ok(device.trace())
}

/// What the profile of one step says.
#[derive(Clone, Debug, PartialEq)]
pub struct StepProfile {
    /// From the step's open to its close, on the CPU.
    pub wall_ns: u64,
    /// Kernels launched in the step.
    pub kernels: usize,
    /// The union of the GPU's spans of the step's work (overlap counted once).
    pub gpu_busy_ns: u64,
    /// The call the CPU spent longest in: its name, its kind and its time.
    pub longest: (String, gpu::OpKind, u64),
    /// The median time between one kernel's end and the next one's start.
    pub median_gap_ns: u64,
}

/// The union's length of `spans` (start, end).
fn union_ns(mut spans: Vec<(u64, u64)>) -> u64 {
    spans.sort_unstable();
    let (mut total, mut reach) = (0, 0);
    for (a, b) in spans {
        let a = a.max(reach);
        if b > a {
            total += b - a;
            reach = b;
        }
    }
    total
}

/// The profile of the last `step` range of `trace`.
pub fn last_step(trace: &Trace) -> Option<StepProfile> {
    let step = trace.ranges.iter().rev().find(|r| r.name == "step")?;
    let entries = trace.range_entries(step);
    let spans: Vec<(u64, u64)> = entries
        .iter()
        .filter_map(|e| e.gpu.map(|g| (g.start_ns, g.end_ns)))
        .collect();
    let mut kernels: Vec<(u64, u64)> = entries
        .iter()
        .filter(|e| e.op == gpu::OpKind::Launch)
        .filter_map(|e| e.gpu.map(|g| (g.start_ns, g.end_ns)))
        .collect();
    kernels.sort_unstable();
    let mut gaps: Vec<u64> = kernels
        .windows(2)
        .map(|w| w[1].0.saturating_sub(w[0].1))
        .collect();
    gaps.sort_unstable();
    let longest = entries.iter().max_by_key(|e| e.cpu_ns())?;
    Some(StepProfile {
        wall_ns: step.cpu_ns(),
        kernels: kernels.len(),
        gpu_busy_ns: union_ns(spans),
        longest: (longest.name.clone(), longest.op, longest.cpu_ns()),
        median_gap_ns: gaps.get(gaps.len() / 2).copied().unwrap_or(0),
    })
}

/// The table of the last step's ranges: calls, CPU time, and the GPU's
/// span of their work, indented by depth.
pub fn range_table(trace: &Trace) -> String {
    let Some(first) = trace
        .ranges
        .iter()
        .rposition(|r| r.name == "step" && r.depth == 0)
    else {
        return String::new();
    };
    let mut out = format!(
        "{:<22} {:>5} {:>12} {:>12}\n",
        "range", "calls", "CPU", "GPU span"
    );
    for range in &trace.ranges[first..] {
        let name = format!("{}{}", "  ".repeat(range.depth as usize), range.name);
        let gpu = trace
            .range_gpu_span(range, None)
            .map_or("-".to_owned(), |g| t((g.end_ns - g.start_ns) as f64));
        let calls = range.end_seq - range.first_seq;
        let cpu = t(range.cpu_ns() as f64);
        let _ = writeln!(out, "{name:<22} {calls:>5} {cpu:>12} {gpu:>12}");
    }
    out
}

/// The report of a profile: the range table and the step's figures.
pub fn report(trace: &Trace, shape: &StepShape, steps: usize) -> String {
    let mut out = format!(
        "a decode step: {} layers of 7 kernels, batch {}, {steps} steps profiled, the last one shown\n\n",
        shape.layers, shape.batch
    );
    out.push_str(&range_table(trace));
    if let Some(p) = last_step(trace) {
        let idle = 1.0 - p.gpu_busy_ns as f64 / p.wall_ns.max(1) as f64;
        let _ = write!(
            out,
            "\nstep wall time      {}\nkernels             {}\nGPU busy            {}\nGPU idle            {:.0}% of the step\nlongest call        {} ({:?}), {}\nmedian kernel gap   {}\n",
            t(p.wall_ns as f64),
            p.kernels,
            t(p.gpu_busy_ns as f64),
            idle * 100.0,
            p.longest.0,
            p.longest.1,
            t(p.longest.2 as f64),
            t(p.median_gap_ns as f64),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn virtual_profile() -> Trace {
        let device = gpu::Device::open(gpu::Backend::Virtual).unwrap();
        profile(&device, &chapter_step(), 1, 2).unwrap()
    }

    #[test]
    fn the_step_marks_every_part_and_waits_at_the_read() {
        let trace = virtual_profile();
        let names: Vec<&str> = trace.ranges.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names.len(), 2 * (1 + 1 + 4 * 3 + 2));
        assert_eq!(
            &names[..6],
            ["step", "embed", "layer.0", "attention", "mlp", "layer.1"]
        );
        let p = last_step(&trace).unwrap();
        assert_eq!(p.kernels, 1 + 4 * 7 + 1);
        assert_eq!(p.longest.1, gpu::OpKind::CopyDeviceToHost, "{p:?}");
        assert!(p.gpu_busy_ns < p.wall_ns);
    }

    #[test]
    fn overlap_is_counted_once() {
        assert_eq!(union_ns(vec![(0, 10), (5, 15), (20, 30), (22, 25)]), 25);
        assert_eq!(union_ns(Vec::new()), 0);
    }

    #[test]
    fn the_report_shows_the_last_step_s_ranges_indented() {
        let report = report(&virtual_profile(), &chapter_step(), 2);
        assert!(report.contains("\n    attention "), "{report}");
        assert_eq!(report.matches("\nstep  ").count(), 1, "{report}");
        assert!(
            report.contains("longest call        read tokens")
                || report.contains("longest call        copy"),
            "{report}"
        );
    }
}
