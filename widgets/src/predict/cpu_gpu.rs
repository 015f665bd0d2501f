//! The CPU-and-GPU chapter's predictions: the launch loop of
//! [`workbook_benches::cpu_gpu::pipeline`] (the chapter's widget), 20
//! launches of a kernel of the reader's length.

use super::{Opt, Outcome, Parameter, Part, Prediction, banded, view};
use crate::view::{Error, time};
use gpu::OpKind;
use std::time::Duration;
use workbook_benches::cpu_gpu::Pipeline;
use workbook_benches::figures::Live;
use workbook_benches::figures::cpu_gpu::live;

/// Launches in the loop.
const COUNT: usize = 20;

/// The kernel lengths the reader picks from, µs.
const KERNELS: &[Opt] = &[
    Opt {
        value: "0",
        label: "empty kernels",
    },
    Opt {
        value: "10",
        label: "10 µs kernels",
    },
    Opt {
        value: "20",
        label: "20 µs kernels",
    },
];

/// The kernel lengths of the `synchronize` prediction, µs.
const SYNC_KERNELS: &[Opt] = &[
    Opt {
        value: "0",
        label: "empty kernels",
    },
    Opt {
        value: "5",
        label: "5 µs kernels",
    },
    Opt {
        value: "20",
        label: "20 µs kernels",
    },
];

pub(super) const PREDICTIONS: &[Prediction] = &[
    Prediction {
        id: "cpu-gpu-bound",
        chapter: "cpu-and-gpu",
        question: "Twenty launches on an idle GPU: which side sets the pace of this loop?",
        parameter: Parameter {
            label: "kernel length",
            options: KERNELS,
        },
        parts: &[Part {
            name: "pace",
            question: "Which side is the bottleneck?",
            options: &[
                Opt {
                    value: "launch",
                    label: "launch-bound: the GPU waits for each launch",
                },
                Opt {
                    value: "compute",
                    label: "compute-bound: the launches run ahead of the GPU",
                },
            ],
        }],
        program,
        run: bound,
    },
    Prediction {
        id: "cpu-gpu-wall",
        chapter: "cpu-and-gpu",
        question: "How long from the first launch until `synchronize` returns?",
        parameter: Parameter {
            label: "kernel length",
            options: KERNELS,
        },
        parts: &[Part {
            name: "wall",
            question: "The wall time T_wall of the loop",
            options: &[
                Opt {
                    value: "lt150",
                    label: "under 150 µs",
                },
                Opt {
                    value: "150-300",
                    label: "150–300 µs",
                },
                Opt {
                    value: "gt300",
                    label: "over 300 µs",
                },
            ],
        }],
        program,
        run: wall,
    },
    Prediction {
        id: "cpu-gpu-sync",
        chapter: "cpu-and-gpu",
        question: "Which call of this loop makes the CPU wait, and for about how long?",
        parameter: Parameter {
            label: "kernel length",
            options: SYNC_KERNELS,
        },
        parts: &[
            Part {
                name: "call",
                question: "The call that waits",
                options: &[
                    Opt {
                        value: "launch",
                        label: "each launch (`spin`)",
                    },
                    Opt {
                        value: "synchronize",
                        label: "`synchronize`",
                    },
                    Opt {
                        value: "none",
                        label: "no call waits",
                    },
                ],
            },
            Part {
                name: "wait",
                question: "How long it waits",
                options: &[
                    Opt {
                        value: "lt20",
                        label: "under 20 µs",
                    },
                    Opt {
                        value: "20-200",
                        label: "20–200 µs",
                    },
                    Opt {
                        value: "gt200",
                        label: "over 200 µs",
                    },
                ],
            },
        ],
        program,
        run: sync,
    },
];

/// The loop, as `pipeline` times it from an idle GPU.
fn program(kernel: &str) -> String {
    let (what, length) = match kernel {
        "0" => ("an empty kernel".to_string(), "Duration::ZERO".to_string()),
        us => (
            format!("a {us} µs kernel"),
            format!("Duration::from_micros({us})"),
        ),
    };
    format!(
        "// {COUNT} launches of {what} on an idle GPU (cpu_gpu::pipeline)\nlet t0 = device.now();\nfor _ in 0..{COUNT} {{\n    stream.spin({length})?;\n}}\nstream.synchronize()?;\nlet wall = device.now() - t0;"
    )
}

/// Runs the loop with `kernel` µs kernels.
fn run(kernel: &str) -> Result<Live<Pipeline>, Error> {
    let us: u64 = kernel
        .parse()
        .map_err(|_| Error::new(format!("`{kernel}` is not a kernel length")))?;
    Ok(live(Duration::from_micros(us), COUNT)?)
}

/// The numbers every prediction of the loop shows.
fn numbers(p: &Pipeline) -> Vec<(&'static str, String)> {
    vec![
        ("ΣCPU: the launch loop", time(p.cpu_ns)),
        ("ΣGPU: the kernels back to back", time(p.gpu_ns)),
        ("T_wall: first launch to synchronize", time(p.wall_ns)),
    ]
}

fn bound(kernel: &str) -> Result<Outcome, Error> {
    let drawn = run(kernel)?;
    let p = drawn.run;
    let (cpu, gpu) = (time(p.cpu_ns), time(p.gpu_ns));
    let right = if p.launch_bound() {
        "launch"
    } else {
        "compute"
    };
    Ok(Outcome::new(view(drawn.svg, &numbers(&p), "")).part(
        right,
        vec![
            match p.launch_bound() {
                true => format!(
                    "Each launch costs the CPU more than its kernel runs: ΣCPU {cpu} is larger than ΣGPU {gpu}, so the GPU idles between kernels."
                ),
                false => format!(
                    "A launch costs the CPU a few µs whatever the kernel does; here ΣCPU is {cpu}, less than ΣGPU {gpu}, so the GPU never waits for a launch."
                ),
            },
            match p.launch_bound() {
                true => format!(
                    "The kernels are shorter than a launch: ΣGPU is {gpu} against ΣCPU {cpu}, so the queue never fills and the GPU waits for the CPU."
                ),
                false => format!(
                    "Each kernel runs longer than a launch costs: ΣGPU {gpu} is larger than ΣCPU {cpu}, so the launches queue ahead of the GPU."
                ),
            },
        ],
    ))
}

fn wall(kernel: &str) -> Result<Outcome, Error> {
    let drawn = run(kernel)?;
    let p = drawn.run;
    let (cpu, gpu, wall) = (time(p.cpu_ns), time(p.gpu_ns), time(p.wall_ns));
    let (right, says) = banded(
        p.wall_ns,
        &[
            (150e3, "lt150"),
            (300e3, "150-300"),
            (f64::INFINITY, "gt300"),
        ],
        &format!(
            "T_wall is {wall}: about the larger of ΣCPU ({cpu}) and ΣGPU ({gpu}), because the launches and the kernels overlap."
        ),
        "Too short: the loop cannot end before the slower of the two sides does.",
        "Too long: that is ΣCPU + ΣGPU or more, as if each launch waited for its kernel, and none does.",
    );
    Ok(Outcome::new(view(drawn.svg, &numbers(&p), "")).part(right, says))
}

fn sync(kernel: &str) -> Result<Outcome, Error> {
    let drawn = run(kernel)?;
    let p = drawn.run;
    let trace = drawn.device.trace();
    let wait = trace
        .entries
        .iter()
        .rev()
        .find(|e| e.op == OpKind::StreamSynchronize)
        .map_or(0, |e| e.cpu_ns());
    let wait_text = time(wait as f64);
    let (cpu, gpu) = (time(p.cpu_ns), time(p.gpu_ns));
    let call = vec![
        format!(
            "A launch only queues the kernel and returns (the loop's {COUNT} launches took {cpu} of CPU in all); only `synchronize` waits, here for {wait_text}."
        ),
        format!(
            "`synchronize` returns only when every queued kernel has run: here it waited {wait_text}."
        ),
        format!(
            "`synchronize` waits until the GPU has run everything queued (here {wait_text}); the launches themselves never wait."
        ),
    ];
    let (right, says) = banded(
        wait as f64,
        &[(20e3, "lt20"), (200e3, "20-200"), (f64::INFINITY, "gt200")],
        &match p.launch_bound() {
            true => format!(
                "The GPU keeps up with the launches (ΣCPU {cpu}, ΣGPU {gpu}), so when the loop ends only the last kernel is left to run: `synchronize` waited {wait_text}."
            ),
            false => format!(
                "The launches ran ahead of the GPU, so when the loop ends about ΣGPU ({gpu}) less ΣCPU ({cpu}) of kernels is still queued: `synchronize` waited {wait_text}."
            ),
        },
        "Too short:",
        "Too long:",
    );
    Ok(Outcome::new(view(drawn.svg, &numbers(&p), ""))
        .part("synchronize", call)
        .part(right, says))
}
