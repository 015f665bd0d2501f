//! The virtual GPU held to the H200: every scenario whose figures the book
//! measures on the H200 (the launch-bound and compute-bound loops, the copy
//! overlaps, the hidden syncs, the sampler's overlap, the allocator's raw
//! segments, graph submit and replay), run by the same code on a GPU and on
//! the virtual GPU with its committed cost table, side by side, with the
//! ratio of each row.
//!
//! Each row is on one [`Side`]: what the GPU's work and the program's own
//! waits set (held within [`GPU_TOLERANCE`] of the GPU's figure), or what
//! the host's CPU costs of driver calls set (a property of the machine the
//! GPU sits in, not of the GPU: the virtual GPU's table carries one host's
//! figures, so these rows are reported, not held).
//!
//! ```text
//! cargo run --release -p workbook-benches --example fidelity
//! ```
//!
//! prints the table, each GPU-side row to be within [`GPU_TOLERANCE`] of the
//! GPU's figure.

use crate::{allocator, cpu_gpu, duration_text, graphs, sampling, streams, sync_loop};
use gpu::Device;
use std::time::Duration;

/// What a scenario's failure is: the `gpu` crate's error, or a benchmark's.
pub type Error = Box<dyn std::error::Error>;

type Result<T> = std::result::Result<T, Error>;

/// How far a GPU-side row of the virtual GPU may be from the GPU's: ±15%.
pub const GPU_TOLERANCE: f64 = 0.15;

/// What sets a row's figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The GPU's work, and waits the program makes itself.
    Gpu,
    /// The host's CPU cost of driver calls.
    Cpu,
}

impl Side {
    /// The word the table prints.
    pub fn word(self) -> &'static str {
        match self {
            Side::Gpu => "GPU",
            Side::Cpu => "CPU",
        }
    }
}

/// One figure of one scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// What was measured, as the table names it.
    pub name: String,
    /// What sets it.
    pub side: Side,
    /// The figure, ns.
    pub ns: f64,
}

fn row(name: impl Into<String>, side: Side, ns: f64) -> Row {
    Row {
        name: name.into(),
        side,
        ns,
    }
}

/// Every row, measured on the devices `open` gives: `open(true)` a device
/// that times every operation on the GPU (for the trace's GPU spans; the
/// virtual GPU always has them), `open(false)` one that does not.
pub fn rows(open: &dyn Fn(bool) -> gpu::Result<Device>) -> Result<Vec<Row>> {
    let mut rows = launches(&open(false)?)?;
    rows.extend(copies(&open(true)?)?);
    rows.extend(hidden_syncs(&open(false)?)?);
    rows.extend(sampler(&open(false)?)?);
    rows.extend(segments(&open(false)?)?);
    rows.extend(graph_rows(&open(false)?)?);
    Ok(rows)
}

/// `cpu_gpu_launch_bound`: 200 launches of each kernel.
fn launches(device: &Device) -> Result<Vec<Row>> {
    let stream = device.new_stream()?;
    cpu_gpu::pipeline(device, &stream, Duration::ZERO, 20)?; // warm-up
    let mut rows = Vec::new();
    for us in [0, 2, 5, 10, 50] {
        let p = cpu_gpu::pipeline(device, &stream, Duration::from_micros(us), 200)?;
        let kernel = match us {
            0 => "empty kernels".to_string(),
            us => format!("{us} µs kernels"),
        };
        rows.push(row(format!("200 {kernel}: ΣGPU"), Side::Gpu, p.gpu_ns));
        if us == 2 || us == 10 {
            rows.push(row(format!("200 {kernel}: ΣCPU"), Side::Cpu, p.cpu_ns));
            let side = if p.launch_bound() {
                Side::Cpu
            } else {
                Side::Gpu
            };
            rows.push(row(format!("200 {kernel}: wall"), side, p.wall_ns));
        }
    }
    Ok(rows)
}

/// `streams_copy_overlap`: 8 chunks of 16 MiB copied and summed.
fn copies(device: &Device) -> Result<Vec<Row>> {
    streams::overlap(device, 2)?; // warm-up
    let o = streams::overlap(device, 8)?;
    let mut rows = vec![
        row("8 chunks, one stream, pinned", Side::Gpu, o.serial_ns),
        row("8 chunks, two streams, pinned", Side::Gpu, o.overlapped_ns),
        row("8 chunks, two streams, pageable", Side::Cpu, o.pageable_ns),
    ];
    if let Some(gpu) = o.gpu {
        rows.push(row("a 16 MiB chunk's pinned copy", Side::Gpu, gpu.copy_ns));
        rows.push(row("a 16 MiB chunk's sum", Side::Gpu, gpu.sum_ns));
    }
    Ok(rows)
}

/// `hidden_syncs_loop`: exercise 104's loop, a read every step or a wait per
/// window.
fn hidden_syncs(device: &Device) -> Result<Vec<Row>> {
    let config = sync_loop::LoopConfig::exercise();
    let s = device.new_stream()?;
    let decoder = sync_loop::decoder(&s, &config)?;
    let every = sync_loop::run(&s, &decoder, &config, sync_loop::Sync::EveryStep)?;
    let window = sync_loop::run(&s, &decoder, &config, sync_loop::Sync::PerWindow)?;
    let ms = |v: f64| v * 1e6;
    Ok(vec![
        row("a decoder step alone", Side::Gpu, ms(every.limit_ms)),
        row("a step, a read every step", Side::Gpu, ms(every.step_ms)),
        row("a step, a wait per window", Side::Gpu, ms(window.step_ms)),
    ])
}

/// `sampling_overlap`: the steady step of the naive and overlapped loops.
fn sampler(device: &Device) -> Result<Vec<Row>> {
    let us = Duration::from_micros;
    sampling::run(device, sampling::Loop::Overlapped, us(100), us(100), 6)?; // warm-up
    let mut rows = Vec::new();
    for (gpu, cpu) in [(2000, 1500), (1000, 1500), (2000, 200)] {
        for (which, name) in [
            (sampling::Loop::Naive, "naive"),
            (sampling::Loop::Overlapped, "overlapped"),
        ] {
            let trace = sampling::run(device, which, us(gpu), us(cpu), 24)?;
            let step = sampling::steady_step_ns(&trace);
            let name = format!("sampler, GPU {gpu} µs, CPU {cpu} µs: {name} step");
            rows.push(row(name, Side::Gpu, step));
        }
    }
    Ok(rows)
}

/// `alloc`: raw segment pairs, idle and behind a 5 ms kernel.
fn segments(device: &Device) -> Result<Vec<Row>> {
    let config = allocator::Config::full();
    let idle = allocator::raw_pairs(device, &config, None)?;
    let busy = allocator::raw_pairs(device, &config, Some(config.kernel))?;
    let us = |v: f64| v * 1e3;
    Ok(vec![
        row(
            "raw alloc_segment, idle",
            Side::Cpu,
            us(idle.alloc_us.median),
        ),
        row("raw free_segment, idle", Side::Cpu, us(idle.free_us.median)),
        row(
            "raw free_segment, behind a 5 ms kernel",
            Side::Gpu,
            us(busy.free_us.median),
        ),
    ])
}

/// `graphs_replay`: submit and replay, eager and from graphs.
fn graph_rows(device: &Device) -> Result<Vec<Row>> {
    let r = graphs::run(device, "", &graphs::Config::full())?;
    Ok(vec![
        row(
            "200 empty kernels, eager: total",
            Side::Cpu,
            r.empty_eager.total.median,
        ),
        row(
            "200 empty kernels, one graph: submit",
            Side::Cpu,
            r.empty_graph.submit.median,
        ),
        row(
            "200 empty kernels, one graph: total",
            Side::Gpu,
            r.empty_graph.total.median,
        ),
        row(
            "decode step, eager: submit",
            Side::Cpu,
            r.step_eager.submit.median,
        ),
        row(
            "decode step, replayed: submit",
            Side::Cpu,
            r.step_graph.submit.median,
        ),
        row(
            "decode step, eager: GPU behind a gate",
            Side::Gpu,
            r.gpu_eager.median,
        ),
        row(
            "decode step, replayed: GPU behind a gate",
            Side::Gpu,
            r.gpu_graph.median,
        ),
        row("200 steps back to back, eager", Side::Cpu, r.loop_eager),
        row("200 steps back to back, replayed", Side::Gpu, r.loop_graph),
        row(
            "two chains, captured on one stream",
            Side::Gpu,
            r.fork.one_stream.median,
        ),
        row(
            "two chains, captured across two",
            Side::Gpu,
            r.fork.two_streams.median,
        ),
    ])
}

/// The table: one line per row, the GPU's figure, the virtual GPU's and
/// their ratio (virtual / GPU); `gpu` and `model` are the same rows, in
/// order.
pub fn table(gpu: &[Row], model: &[Row]) -> String {
    let mut text = format!(
        "{:<48}  {:<4}  {:>10}  {:>10}  {:>7}\n",
        "row", "side", "GPU", "virtual", "ratio"
    );
    for (g, m) in gpu.iter().zip(model) {
        text += &format!(
            "{:<48}  {:<4}  {:>10}  {:>10}  {:>7.2}\n",
            g.name,
            g.side.word(),
            duration_text(g.ns),
            duration_text(m.ns),
            m.ns / g.ns
        );
    }
    text
}

/// A line of the table, read back: name, side, the virtual column's text and
/// the ratio.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// The row's name.
    pub name: String,
    /// Its side, as printed.
    pub side: String,
    /// The virtual GPU's figure, as printed.
    pub model: String,
    /// virtual / GPU.
    pub ratio: f64,
}

/// The table's lines in `text` (a measurement file: its header, a blank
/// line, the table), or why they cannot be read.
pub fn read(text: &str) -> std::result::Result<Vec<Line>, String> {
    let start = text
        .lines()
        .position(|l| l.starts_with("row "))
        .ok_or("the file has no table (no line starting with `row`)")?;
    text.lines()
        .skip(start + 1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cells: Vec<&str> = l
                .split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect();
            let [name, side, _gpu, model, ratio] = cells[..] else {
                return Err(format!("`{l}` does not have five columns"));
            };
            let ratio = ratio
                .parse()
                .map_err(|_| format!("`{l}`: `{ratio}` is not a ratio"))?;
            Ok(Line {
                name: name.to_string(),
                side: side.to_string(),
                model: model.to_string(),
                ratio,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_reads_back_what_it_printed() {
        let gpu = [row("a", Side::Gpu, 1000.0), row("b, c", Side::Cpu, 2.0e6)];
        let model = [row("a", Side::Gpu, 1100.0), row("b, c", Side::Cpu, 1.0e6)];
        let text = format!("command: x\n\n{}", table(&gpu, &model));
        let lines = read(&text).unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!((lines[0].ratio, lines[1].ratio), (1.1, 0.5));
        assert_eq!(lines[1].model, "1.00 ms");
        assert!(read("no table").is_err());
    }
}
