//! The CPU-and-GPU chapter's timelines: a loop of launches on an idle GPU,
//! as [`crate::cpu_gpu::pipeline`] runs it after measuring ΣGPU behind its
//! gate, launch-bound (2 µs kernels) and compute-bound (10 µs kernels); the
//! same drawing for any kernel and count (the chapter's live timeline).

use super::{Live, live_device};
use crate::cpu_gpu::{Pipeline, pipeline};
use crate::duration_text;
use gpu::{OpKind, Result, SvgOptions};
use std::time::Duration;

/// The figure's loop: 20 launches of a 2 µs kernel, which a 4 µs launch
/// cannot keep fed.
pub const LOOP: (Duration, usize) = (Duration::from_micros(2), 20);

/// The figure.
pub(super) fn launch_loop() -> String {
    live(LOOP.0, LOOP.1)
        .expect("the loop runs on the virtual GPU")
        .svg
}

/// Runs [`pipeline`] with `count` spins of `kernel` on a fresh virtual GPU
/// and draws its second loop (the one timed from an idle GPU), from the first
/// launch to the end of the `synchronize` after the last.
pub fn live(kernel: Duration, count: usize) -> Result<Live<Pipeline>> {
    let device = live_device()?;
    let stream = device.new_stream()?;
    let run = pipeline(&device, &stream, kernel, count)?;
    let trace = device.trace();
    // The first loop ends in `elapsed_ms`, which waits for the gate.
    let gated = trace
        .entries
        .iter()
        .rposition(|e| e.op == OpKind::EventElapsed)
        .unwrap_or(0);
    let after_gate = trace.entries[gated].cpu_end_ns;
    let first = trace.entries[gated..]
        .iter()
        .find(|e| e.op == OpKind::Launch)
        .map_or(after_gate, |e| e.cpu_start_ns);
    let end = trace.entries.last().map_or(first, |e| e.cpu_end_ns);
    let pad = (end - first) / 20;
    let svg = trace.to_svg(&SvgOptions {
        width: 1000,
        title: Some(title(&run, count)),
        window_ns: Some((first.saturating_sub(pad).max(after_gate), end + pad)),
    });
    Ok(Live { svg, run, device })
}

/// The heading: the loop, and which side sets its pace.
fn title(run: &Pipeline, count: usize) -> String {
    let kernel = match run.kernel_ns {
        0.0 => "an empty kernel".to_string(),
        ns => format!("a {} kernel", duration_text(ns)),
    };
    let verdict = if run.launch_bound() {
        "launch-bound: the GPU waits for each launch"
    } else {
        "compute-bound: the launches run ahead of the GPU"
    };
    format!("{count} launches of {kernel} on an idle GPU, {verdict}")
}

/// The compute-bound figure's loop: the same 20 launches, of a 10 µs kernel,
/// longer than a launch, so the launches run ahead of the GPU.
pub const COMPUTE_BOUND_LOOP: (Duration, usize) = (Duration::from_micros(10), 20);

/// The compute-bound figure: [`COMPUTE_BOUND_LOOP`], drawn like [`LOOP`].
pub(super) fn compute_bound_loop() -> String {
    live(COMPUTE_BOUND_LOOP.0, COMPUTE_BOUND_LOOP.1)
        .expect("the loop runs on the virtual GPU")
        .svg
}
