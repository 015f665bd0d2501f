//! The sampling chapter's predictions: the decode loop of
//! [`workbook_benches::sampling::run`] (the chapter's widget), naive or
//! overlapped (exercise 102's solution), 2 ms of GPU a step.

use super::{Opt, Outcome, Parameter, Part, Prediction, banded, view};
use crate::view::{Error, percent, time};
use gpu::{OpKind, Trace};
use std::time::Duration;
use workbook_benches::figures::overlap::{STEP, live};
use workbook_benches::sampling::{Loop, launches, steady_step_ns};

const LOOPS: &[Opt] = &[
    Opt {
        value: "naive",
        label: "naive",
    },
    Opt {
        value: "overlapped",
        label: "overlapped (exercise 102)",
    },
];

pub(super) const PREDICTIONS: &[Prediction] = &[
    Prediction {
        id: "overlap-step",
        chapter: "sampling-overlap",
        question: "Each step takes 2 ms on the GPU and 1.5 ms of CPU work: what is the steady step time of this loop?",
        parameter: Parameter {
            label: "loop",
            options: LOOPS,
        },
        parts: &[Part {
            name: "step",
            question: "The step time, steady state",
            options: &[
                Opt {
                    value: "cpu",
                    label: "about 1.5 ms (the CPU's work)",
                },
                Opt {
                    value: "max",
                    label: "about 2 ms (the larger of the two)",
                },
                Opt {
                    value: "sum",
                    label: "about 3.5 ms (GPU + CPU)",
                },
            ],
        }],
        program: |which| program(which, STEP.1),
        run: |which| step(which),
    },
    Prediction {
        id: "overlap-wait",
        chapter: "sampling-overlap",
        question: "Which call makes the CPU wait in each step, and for about how long?",
        parameter: Parameter {
            label: "loop",
            options: LOOPS,
        },
        parts: &[
            Part {
                name: "call",
                question: "The call that waits",
                options: &[
                    Opt {
                        value: "to_vec",
                        label: "the copy of the tokens into a `Vec` (`to_vec`)",
                    },
                    Opt {
                        value: "event",
                        label: "an event's `synchronize` (step N's results)",
                    },
                    Opt {
                        value: "launch",
                        label: "the launch of the step",
                    },
                ],
            },
            Part {
                name: "wait",
                question: "How long it waits",
                options: &[
                    Opt {
                        value: "lt100us",
                        label: "under 0.1 ms",
                    },
                    Opt {
                        value: "100us-1ms",
                        label: "0.1–1 ms",
                    },
                    Opt {
                        value: "gt1ms",
                        label: "over 1 ms",
                    },
                ],
            },
        ],
        program: |which| program(which, STEP.1),
        run: wait,
    },
    Prediction {
        id: "overlap-bound",
        chapter: "sampling-overlap",
        question: "The overlapped loop, 2 ms of GPU a step: is the GPU busy all the time?",
        parameter: Parameter {
            label: "CPU work per step",
            options: &[
                Opt {
                    value: "1500",
                    label: "1.5 ms",
                },
                Opt {
                    value: "3000",
                    label: "3 ms",
                },
            ],
        },
        parts: &[Part {
            name: "busy",
            question: "The GPU's share of the step",
            options: &[
                Opt {
                    value: "busy",
                    label: "busy (95 % or more): the GPU sets the pace",
                },
                Opt {
                    value: "idles",
                    label: "idle part of each step: the CPU sets the pace",
                },
            ],
        }],
        program: |cpu| program("overlapped", micros(cpu)),
        run: bound,
    },
];

/// `us` microseconds (a value of a parameter).
fn micros(us: &str) -> Duration {
    Duration::from_micros(us.parse().unwrap_or(1500))
}

/// The loop `which` with `cpu` of host work a step.
fn program(which: &str, cpu: Duration) -> String {
    let us = cpu.as_micros();
    match which {
        "naive" => format!(
            "// the naive decode loop (sampling::naive_generate)\nwhile !finished {{\n    device.host_work(Duration::from_micros({us})); // schedule\n    stream.decode_step(&decoder, input, output)?; // 2 ms on the GPU\n    let next = stream.to_vec(output)?; // `.tolist()`\n    // check EOS on the CPU\n}}"
        ),
        _ => format!(
            "// the overlapped loop (exercise 102's generate)\nsampler.submit()?; // step 0\nwhile !sampler.is_finished() {{\n    device.host_work(Duration::from_micros({us})); // schedule step N+1\n    sampler.submit()?; // step N+1, from step N's tokens on the GPU; 2 ms\n    sampler.process()?; // waits for step N's event, reads its pinned tokens\n}}"
        ),
    }
}

/// The loop `which` run with `cpu` of host work a step: the drawing, the
/// trace and the steady step.
fn run(which: &str, cpu: Duration) -> Result<(String, Trace, f64), Error> {
    let which = match which {
        "naive" => Loop::Naive,
        _ => Loop::Overlapped,
    };
    let drawn = live(which, STEP.0, cpu)?;
    let step = steady_step_ns(&drawn.run);
    Ok((drawn.svg, drawn.run, step))
}

/// The numbers every prediction of the loop shows.
fn numbers(step: f64, cpu: Duration) -> Vec<(&'static str, String)> {
    let (gpu, cpu) = (STEP.0.as_nanos() as f64, cpu.as_nanos() as f64);
    vec![
        ("step time (median, steady state)", time(step)),
        ("max(GPU, CPU): the overlapped limit", time(gpu.max(cpu))),
        ("GPU + CPU: the naive step", time(gpu + cpu)),
        ("GPU busy", percent(gpu, step)),
    ]
}

fn step(which: &str) -> Result<Outcome, Error> {
    let (svg, _, step) = run(which, STEP.1)?;
    let text = time(step);
    let candidates = [(1.5e6, "cpu"), (2e6, "max"), (3.5e6, "sum")];
    let right = candidates
        .iter()
        .min_by(|a, b| (a.0 - step).abs().total_cmp(&(b.0 - step).abs()))
        .map(|c| c.1)
        .expect("three");
    let why = match right {
        "sum" => format!(
            "The naive loop waits in `to_vec` for each step's tokens before it starts the next step's CPU work, so the GPU and the CPU take turns: {text} a step."
        ),
        _ => format!(
            "The overlapped loop submits step N+1 before it waits for step N, so the CPU's 1.5 ms runs under the GPU's 2 ms: {text} a step, the larger of the two."
        ),
    };
    let says = candidates
        .iter()
        .map(|&(_, option)| match option {
            o if o == right => why.clone(),
            "cpu" => format!(
                "The CPU's work is not the whole step: the GPU's 2 ms is longer, and nothing makes it faster. {why}"
            ),
            "max" => format!("That is the overlapped limit, and this loop does not overlap. {why}"),
            _ => format!("That would be a loop where the two take turns; this one does not. {why}"),
        })
        .collect();
    Ok(Outcome::new(view(svg, &numbers(step, STEP.1), "")).part(right, says))
}

fn wait(which: &str) -> Result<Outcome, Error> {
    let (svg, trace, step) = run(which, STEP.1)?;
    // The steady steps: from the third launch to the last.
    let from = launches(&trace)[2];
    let mut waits: Vec<(OpKind, u64)> = trace
        .entries
        .iter()
        .filter(|e| e.cpu_start_ns >= from && e.blocking.is_some())
        .filter(|e| matches!(e.op, OpKind::CopyDeviceToHost | OpKind::EventSynchronize))
        .map(|e| (e.op, e.cpu_ns()))
        .collect();
    waits.sort_by_key(|w| w.1);
    let (op, longest) = waits[waits.len() / 2];
    let call = match op {
        OpKind::CopyDeviceToHost => "to_vec",
        _ => "event",
    };
    let waited = time(longest as f64);
    let call_why = match call {
        "to_vec" => format!(
            "The naive loop reads the step's tokens into a `Vec` right after launching it, so `to_vec` waits for the whole step: {waited} (the median)."
        ),
        _ => format!(
            "The overlapped loop reads step N's tokens from pinned memory after its event; `synchronize` on that event waits only for what is left of step N once step N+1 is queued: {waited} (the median)."
        ),
    };
    let calls = vec![
        match call {
            "to_vec" => call_why.clone(),
            _ => format!(
                "The overlapped loop copies the tokens into pinned memory, which never blocks; it waits on step N's event instead. {call_why}"
            ),
        },
        match call {
            "event" => call_why.clone(),
            _ => format!(
                "The naive loop records no event to wait on: its `.tolist()` copy is the wait. {call_why}"
            ),
        },
        format!("A launch only queues the step. {call_why}"),
    ];
    let (right, says) = banded(
        longest as f64,
        &[
            (100e3, "lt100us"),
            (1e6, "100us-1ms"),
            (f64::INFINITY, "gt1ms"),
        ],
        &match call {
            "to_vec" => format!(
                "It waits for the step the CPU has just launched, about the GPU's 2 ms: {waited}."
            ),
            _ => format!(
                "It waits for the GPU's 2 ms less the CPU's 1.5 ms of work done meanwhile: {waited}."
            ),
        },
        "Too short.",
        "Too long.",
    );
    Ok(Outcome::new(view(svg, &numbers(step, STEP.1), ""))
        .part(call, calls)
        .part(right, says))
}

fn bound(cpu: &str) -> Result<Outcome, Error> {
    let cpu = micros(cpu);
    let (svg, _, step) = run("overlapped", cpu)?;
    let gpu = STEP.0.as_nanos() as f64;
    let busy = gpu / step;
    let (text, share) = (time(step), percent(gpu, step));
    let cpu_text = time(cpu.as_nanos() as f64);
    let (right, says) = match busy >= 0.95 {
        true => (
            "busy",
            vec![
                format!(
                    "The CPU's {cpu_text} fits under the GPU's 2 ms, so step N+1 is always queued before step N ends: {text} a step, the GPU busy {share}."
                ),
                format!(
                    "The CPU's {cpu_text} is shorter than the GPU's 2 ms and runs under it; the GPU never waits: {text} a step, busy {share}."
                ),
            ],
        ),
        false => (
            "idles",
            vec![
                format!(
                    "Overlap hides the shorter side only: the CPU's {cpu_text} is longer than the GPU's 2 ms, so the GPU waits for each submit: {text} a step, busy {share}."
                ),
                format!(
                    "The step is max(GPU, CPU), and here the CPU is the larger: {text} a step, the GPU busy {share}."
                ),
            ],
        ),
    };
    Ok(Outcome::new(view(svg, &numbers(step, cpu), "")).part(right, says))
}
