//! The CUDA graphs chapter's widget: a step of kernels, launched one by one
//! or replayed from a graph, its kernel count and length against the launch
//! cost ([`workbook_benches::graphs::kernel_step`]).

use crate::controls::{Spec, Values, choice, micros, range};
use crate::timeline::{busy, is_kernel, length};
use crate::view::{Error, View, percent, time};
use gpu::{Backend, Device, DeviceOptions};
use std::time::Duration;
use workbook_benches::figures::graphs::{KERNELS, live};
use workbook_benches::graphs::{KernelStep, kernel_step};

/// Kernels per step, their length, eager or replayed; the defaults are the
/// figure's (200 empty kernels, eager).
pub(crate) fn spec() -> Spec {
    Spec {
        figure: "graphs-kernels.svg",
        controls: vec![
            range(
                "count",
                "kernels per step",
                (1, 400, 1),
                KERNELS.count as i64,
                "",
            ),
            micros(
                "length_us",
                "GPU time per kernel",
                (0, 50, 1),
                KERNELS.length,
            ),
            choice(
                "mode",
                "submitted",
                &[
                    ("eager", "one launch per kernel"),
                    ("replay", "as one graph"),
                ],
            ),
        ],
    }
}

/// The step the values describe.
fn step(values: &Values, replay: bool) -> KernelStep {
    KernelStep {
        count: values.int("count") as usize,
        length: Duration::from_micros(values.int("length_us") as u64),
        replay,
    }
}

/// Runs the step: the CPU's submit time, the time until the GPU is done,
/// how much of it the GPU idles, and the submit time the other way.
pub(crate) fn render(values: &Values) -> Result<View, Error> {
    let replay = values.text("mode") == "replay";
    let drawn = live(&step(values, replay))?;
    let (submit, total) = (drawn.run.submit.median, drawn.run.total.median);
    let trace = drawn.device.trace();
    let started = drawn.device.now().as_nanos() as u64 - total as u64;
    let gpu = length(&busy(&trace, |e| is_kernel(e) && e.cpu_start_ns >= started)) as f64;
    let other = other_submit(&step(values, !replay))?;
    let (eager, graph) = if replay {
        (other, submit)
    } else {
        (submit, other)
    };
    Ok(View::new(drawn.svg)
        .number("CPU time to submit the step", time(submit))
        .number("until the GPU is done", time(total))
        .number("GPU busy", time(gpu))
        .number("GPU idle", percent(total - gpu, total))
        .number(
            "submit: one by one / as a graph",
            format!("{} / {} ({:.0}×)", time(eager), time(graph), eager / graph),
        ))
}

/// The submit time of `step` on a fresh virtual GPU.
fn other_submit(step: &KernelStep) -> Result<f64, Error> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })?;
    let stream = device.new_stream()?;
    Ok(kernel_step(&device, &stream, step, 1)?.submit.median)
}
