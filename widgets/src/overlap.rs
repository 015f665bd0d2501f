//! The sampling chapter's widget: the decode loop, naive or overlapped, with
//! any GPU and CPU time per step ([`workbook_benches::sampling::run`]).

use crate::controls::{Spec, Values, choice, micros};
use crate::view::{Error, View, percent, time};
use std::time::Duration;
use workbook_benches::figures::overlap::{STEP, live};
use workbook_benches::sampling::{Loop, steady_step_ns};

/// The loop and the step's GPU and CPU time; the defaults are the
/// overlapped figure's.
pub(crate) fn spec() -> Spec {
    Spec {
        figure: "overlap-overlapped.svg",
        controls: vec![
            choice(
                "loop",
                "loop",
                &[
                    ("overlapped", "overlapped (exercise 102)"),
                    ("naive", "naive"),
                ],
            ),
            micros("gpu_us", "GPU time per step", (500, 5000, 100), STEP.0),
            micros("cpu_us", "CPU time per step", (100, 5000, 100), STEP.1),
        ],
    }
}

/// Runs the loop: the steady step against max(GPU, CPU) and GPU + CPU.
pub(crate) fn render(values: &Values) -> Result<View, Error> {
    let which = match values.text("loop") {
        "naive" => Loop::Naive,
        _ => Loop::Overlapped,
    };
    let gpu = Duration::from_micros(values.int("gpu_us") as u64);
    let cpu = Duration::from_micros(values.int("cpu_us") as u64);
    let drawn = live(which, gpu, cpu)?;
    let step = steady_step_ns(&drawn.run);
    let (gpu, cpu) = (gpu.as_nanos() as f64, cpu.as_nanos() as f64);
    Ok(View::new(drawn.svg)
        .number("step time (median, steady state)", time(step))
        .number("max(GPU, CPU): the overlapped limit", time(gpu.max(cpu)))
        .number("GPU + CPU: the naive step", time(gpu + cpu))
        .number(
            "efficiency: max(GPU, CPU) / step",
            percent(gpu.max(cpu), step),
        )
        .number("GPU busy", percent(gpu, step)))
}
