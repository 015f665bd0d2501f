//! The CUDA graphs chapter's predictions: a step of kernels launched one by
//! one or replayed from a graph ([`workbook_benches::graphs::kernel_step`],
//! the chapter's widget), and a capture with one more call in it (the
//! benchmark's `sync_in_capture`, with the call as the parameter).

use super::{Opt, Outcome, Parameter, Part, Prediction, banded, view};
use crate::timeline::{busy, is_kernel, length};
use crate::view::{Error, percent, time};
use gpu::SvgOptions;
use std::time::Duration;
use workbook_benches::cpu_gpu::pipeline;
use workbook_benches::figures::graphs::{KERNELS, live};
use workbook_benches::figures::{live_device, untimed_device};
use workbook_benches::graphs::{KernelStep, kernel_step};

/// Runs of the untimed step whose median `graphs-idle` reads.
const UNTIMED_REPS: usize = 5;

pub(super) const PREDICTIONS: &[Prediction] = &[
    Prediction {
        id: "graphs-submit",
        chapter: "cuda-graphs",
        question: "A step of 200 empty kernels: how long does the CPU take to submit it?",
        parameter: Parameter {
            label: "submitted",
            options: &[
                Opt {
                    value: "replay",
                    label: "as one graph",
                },
                Opt {
                    value: "eager",
                    label: "one launch per kernel",
                },
            ],
        },
        parts: &[Part {
            name: "submit",
            question: "CPU time to submit the step",
            options: &[
                Opt {
                    value: "lt50",
                    label: "under 50 µs",
                },
                Opt {
                    value: "50-500",
                    label: "50–500 µs",
                },
                Opt {
                    value: "gt500",
                    label: "over 500 µs",
                },
            ],
        }],
        program: |mode| step_program(mode, 0),
        run: submit,
    },
    Prediction {
        id: "graphs-idle",
        chapter: "cuda-graphs",
        question: "200 kernels launched one by one: is the GPU idle for more than a tenth of the step?",
        parameter: Parameter {
            label: "GPU time per kernel",
            options: &[
                Opt {
                    value: "0",
                    label: "empty kernels",
                },
                Opt {
                    value: "20",
                    label: "20 µs kernels",
                },
            ],
        },
        parts: &[Part {
            name: "idle",
            question: "Is the GPU idle more than a tenth of the time?",
            options: &[
                Opt {
                    value: "yes",
                    label: "yes: it waits for the launches",
                },
                Opt {
                    value: "no",
                    label: "no: the kernels keep it busy",
                },
            ],
        }],
        program: |us| step_program("eager", us.parse().unwrap_or(0)),
        run: idle,
    },
    Prediction {
        id: "graphs-capture",
        chapter: "cuda-graphs",
        question: "One more call inside a stream capture: does it work, and does `end_capture` give a graph?",
        parameter: Parameter {
            label: "the call",
            options: &[
                Opt {
                    value: "synchronize",
                    label: "`stream.synchronize()`",
                },
                Opt {
                    value: "record_event",
                    label: "`stream.record_event()`",
                },
            ],
        },
        parts: &[
            Part {
                name: "call",
                question: "The call inside the capture",
                options: &[
                    Opt {
                        value: "ok",
                        label: "works",
                    },
                    Opt {
                        value: "error",
                        label: "fails",
                    },
                ],
            },
            Part {
                name: "graph",
                question: "`end_capture`",
                options: &[
                    Opt {
                        value: "graph",
                        label: "returns a graph",
                    },
                    Opt {
                        value: "error",
                        label: "fails: the capture was invalidated, and what it recorded is thrown away",
                    },
                ],
            },
        ],
        program: capture_program,
        run: capture,
    },
];

/// The step of `count` kernels of `us` µs, `mode` eager or replay.
fn step_program(mode: &str, us: u64) -> String {
    let count = KERNELS.count;
    match mode {
        "replay" => format!(
            "// {count} kernels of {us} µs, captured once, replayed (graphs::kernel_step)\nstream.begin_capture()?;\nfor _ in 0..{count} {{\n    stream.spin(Duration::from_micros({us}))?;\n}}\nlet graph = stream.end_capture()?;\nlet t0 = device.now();\ngraph.launch()?; // the step\nlet submit = device.now() - t0;\nstream.synchronize()?;"
        ),
        _ => format!(
            "// {count} kernels of {us} µs, one launch each (graphs::kernel_step)\nlet t0 = device.now();\nfor _ in 0..{count} {{\n    stream.spin(Duration::from_micros({us}))?;\n}}\nlet submit = device.now() - t0;\nstream.synchronize()?;"
        ),
    }
}

/// Runs the step.
fn step(
    mode: &str,
    us: u64,
) -> Result<
    (
        workbook_benches::figures::Live<workbook_benches::graphs::Timing>,
        f64,
    ),
    Error,
> {
    let drawn = live(&KernelStep {
        count: KERNELS.count,
        length: Duration::from_micros(us),
        replay: mode == "replay",
    })?;
    let trace = drawn.device.trace();
    // The timed run's kernels: the last `count` (a warm-up ran before).
    // Its start is read from the trace, not from the clock now, which on a
    // real GPU has moved on while the run was drawn.
    let kernels: Vec<_> = trace.entries.iter().filter(|e| is_kernel(e)).collect();
    let started = kernels
        .len()
        .checked_sub(KERNELS.count)
        .map_or(0, |first| kernels[first].cpu_start_ns);
    let gpu = length(&busy(&trace, |e| is_kernel(e) && e.cpu_start_ns >= started)) as f64;
    Ok((drawn, gpu))
}

/// The numbers of a step.
fn numbers(submit: f64, total: f64, gpu: f64) -> Vec<(&'static str, String)> {
    vec![
        ("CPU time to submit the step", time(submit)),
        ("until the GPU is done", time(total)),
        ("GPU busy", time(gpu)),
        ("GPU idle", percent(total - gpu, total)),
    ]
}

fn submit(mode: &str) -> Result<Outcome, Error> {
    let (drawn, gpu) = step(mode, 0)?;
    let (submit, total) = (drawn.run.submit.median, drawn.run.total.median);
    let text = time(submit);
    let why = match mode {
        "replay" => format!(
            "A graph is submitted with one launch, whatever it holds: {text} for 200 kernels."
        ),
        _ => format!(
            "Each of the 200 launches costs the CPU its few microseconds, even for an empty kernel: {text} in all."
        ),
    };
    let (right, says) = banded(
        submit,
        &[(50e3, "lt50"), (500e3, "50-500"), (f64::INFINITY, "gt500")],
        &why,
        "Too short.",
        "Too long.",
    );
    Ok(Outcome::new(view(drawn.svg, &numbers(submit, total, gpu), "")).part(right, says))
}

fn idle(us: &str) -> Result<Outcome, Error> {
    let us: u64 = us.parse().unwrap_or(0);
    let (drawn, _) = step("eager", us)?;
    let submit = drawn.run.submit.median;
    let (total, gpu) = untimed_step(us)?;
    let idle = percent(total - gpu, total);
    let mostly_idle = gpu < total * 0.9;
    let says = match mostly_idle {
        true => vec![
            format!(
                "An empty kernel runs for far less than a launch costs, so the GPU finishes each one and waits for the next launch: idle {idle} of the step."
            ),
            format!(
                "Empty kernels cannot keep the GPU busy when each launch costs the CPU microseconds: the GPU was idle {idle} of the step ({} to submit).",
                time(submit)
            ),
        ],
        false => vec![
            format!(
                "A 20 µs kernel runs longer than a launch costs, so the launches queue ahead and the GPU runs the kernels back to back: idle only {idle}."
            ),
            format!(
                "The kernels are longer than the launches, so the GPU never waits for the CPU: idle {idle} of the step."
            ),
        ],
    };
    let right = if mostly_idle { "yes" } else { "no" };
    Ok(Outcome::new(view(drawn.svg, &numbers(submit, total, gpu), "")).part(right, says))
}

/// The eager step again, on a device without GPU timing
/// ([`untimed_device`]): the median time until the GPU is done, from the
/// first launch, and the kernels' own GPU time, the same kernels back to
/// back behind a gate ([`pipeline`]).
fn untimed_step(us: u64) -> Result<(f64, f64), Error> {
    let device = untimed_device()?;
    let stream = device.new_stream()?;
    let step = KernelStep {
        length: Duration::from_micros(us),
        ..KERNELS
    };
    let total = kernel_step(&device, &stream, &step, UNTIMED_REPS)?
        .total
        .median;
    let gpu = pipeline(&device, &stream, step.length, step.count)?.gpu_ns;
    Ok((total, gpu))
}

/// The capture with `call` inside.
fn capture_program(call: &str) -> String {
    let inside = match call {
        "synchronize" => "stream.synchronize()?; // wait for the first kernel",
        _ => "let done = stream.record_event()?; // mark the first kernel",
    };
    format!(
        "stream.begin_capture()?;\nstream.spin(Duration::from_micros(10))?;\n{inside}\nstream.spin(Duration::from_micros(10))?;\nlet graph = stream.end_capture()?;"
    )
}

fn capture(call: &str) -> Result<Outcome, Error> {
    let device = live_device()?;
    let stream = device.new_stream()?;
    stream.begin_capture()?;
    stream.spin(Duration::from_micros(10))?;
    let inside = match call {
        "synchronize" => stream.synchronize(),
        _ => stream.record_event().map(drop),
    };
    let _ = stream.spin(Duration::from_micros(10));
    let ended = stream.end_capture();
    let nodes = ended.as_ref().map(gpu::Graph::len);
    let svg = device.trace().to_svg(&SvgOptions {
        width: 1000,
        title: Some("A stream capture".into()),
        window_ns: None,
    });
    let report = [inside.as_ref().err(), ended.as_ref().err()]
        .into_iter()
        .flatten()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    let numbers = [
        (
            "the call",
            match &inside {
                Ok(()) => "works".to_string(),
                Err(_) => "fails".to_string(),
            },
        ),
        (
            "end_capture",
            match &nodes {
                Ok(n) => format!("a graph of {n} nodes"),
                Err(_) => "fails".to_string(),
            },
        ),
    ];
    let call_says = match &inside {
        Ok(()) => vec![
            "Recording an event does not make the CPU wait: the capture takes it in as an edge other streams can wait on, not as a node (only `cudaEventRecordExternal` makes an event-record node).".to_string(),
            "An event record does not make the CPU wait, so a capture accepts it.".to_string(),
        ],
        Err(e) => vec![
            format!(
                "During a capture nothing runs, so there is nothing for the CPU to wait for: a call that would wait is refused, and it invalidates the capture ({e})."
            ),
            "`synchronize` would make the CPU wait for the GPU, which a capture cannot record: the call fails.".to_string(),
        ],
    };
    let graph_says = match &nodes {
        Ok(n) => vec![
            format!("Nothing in the capture was illegal, so `end_capture` instantiates the graph: {n} nodes."),
            format!("The capture stayed valid: `end_capture` returns a graph of {n} nodes."),
        ],
        Err(e) => vec![
            format!(
                "An illegal call invalidates the whole capture, as CUDA does (`cudaErrorStreamCaptureInvalidated`): the work recorded so far is thrown away, and `end_capture` reports it: {e}"
            ),
            "The illegal call invalidated the capture, so `end_capture` has no graph to give: begin a new capture without that call.".to_string(),
        ],
    };
    let (call_right, graph_right) = (
        if inside.is_ok() { "ok" } else { "error" },
        if nodes.is_ok() { "graph" } else { "error" },
    );
    Ok(Outcome::new(view(svg, &numbers, &report))
        .part(call_right, call_says)
        .part(graph_right, graph_says))
}
