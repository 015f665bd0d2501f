//! The CPU-and-GPU chapter's widget: a loop of launches on an idle GPU, its
//! kernel count and kernel length against the launch cost
//! ([`workbook_benches::cpu_gpu::pipeline`]).

use crate::controls::{Spec, Values, micros, range};
use crate::view::{Error, View, time};
use std::time::Duration;
use workbook_benches::figures::cpu_gpu::{LOOP, live};

/// Kernels and GPU time per kernel; the defaults are the figure's.
pub(crate) fn spec() -> Spec {
    Spec {
        figure: "cpu-gpu-launch-loop.svg",
        controls: vec![
            range("count", "kernels", (1, 200, 1), LOOP.1 as i64, ""),
            micros("kernel_us", "GPU time per kernel", (0, 50, 1), LOOP.0),
        ],
    }
}

/// Runs the loop: ΣCPU, ΣGPU, the wall time against their maximum.
pub(crate) fn render(values: &Values) -> Result<View, Error> {
    let kernel = Duration::from_micros(values.int("kernel_us") as u64);
    let drawn = live(kernel, values.int("count") as usize)?;
    let p = drawn.run;
    let launch = drawn.device.calibration().launch_ns as f64;
    let bound = p.cpu_ns.max(p.gpu_ns);
    let verdict = if p.launch_bound() {
        "launch-bound: ΣCPU is the larger sum, the GPU waits for the launches"
    } else {
        "compute-bound: ΣGPU is the larger sum, the launches run ahead"
    };
    Ok(View::new(drawn.svg)
        .number("launch cost (CPU, H200 calibration)", time(launch))
        .number("ΣCPU: the launch loop", time(p.cpu_ns))
        .number("ΣGPU: the kernels back to back", time(p.gpu_ns))
        .number("T_wall: first launch to synchronize", time(p.wall_ns))
        .number("max(ΣCPU, ΣGPU)", time(bound))
        .number("T_wall / max", format!("{:.2}", p.wall_ns / bound))
        .report(format!("The loop is {verdict}.")))
}
