//! The profiling chapter's predictions: the chapter's decode step
//! ([`workbook_benches::profile_step::step`]) profiled with its ranges,
//! the layers' kernels ten times longer than the chapter's (the GPU sets
//! the pace) or ten times shorter (the launches do), each answered from
//! the profile of the last step, as the chapter reads one: the CPU's time
//! in calls and ranges, and where the GPU ran each range's work.
//!
//! Every answer is read from the CPU's clock, or from where a range's GPU
//! span starts and how long it lasts against the range's CPU time, never
//! from the GPU's busy time: on a real GPU the crate times each operation
//! with a pair of events, and a pair around a launch that finds the GPU
//! idle also times the wait for the launch, so the busy time of a
//! launch-bound step reads high there. (Over 400 lines: the three
//! predictions share one step and its readings; each is a short section.)

use super::{Opt, Outcome, Parameter, Part, Prediction, banded, view};
use crate::view::{Error, time};
use gpu::{OpKind, Range, Trace};
use std::time::Duration;
use workbook_benches::figures::Live;
use workbook_benches::figures::profile::live;
use workbook_benches::profile_step::{StepShape, chapter_step, range_table};

/// The layers' kernels the reader picks from.
const KERNELS: &[Opt] = &[
    Opt {
        value: "x10",
        label: "10× the chapter's (30–100 µs)",
    },
    Opt {
        value: "div10",
        label: "a tenth of the chapter's (0.3–1 µs)",
    },
];

/// The parameter of every prediction here.
const PARAMETER: Parameter = Parameter {
    label: "the kernels",
    options: KERNELS,
};

pub(super) const PREDICTIONS: &[Prediction] = &[
    Prediction {
        id: "profile-wait",
        chapter: "profiling",
        question: "One step of the chapter's engine, profiled: which call does the CPU spend longest in, and where does it spend more of the step?",
        parameter: PARAMETER,
        parts: &[
            Part {
                name: "longest",
                question: "The longest call of the step",
                options: &[
                    Opt {
                        value: "launch",
                        label: "a launch",
                    },
                    Opt {
                        value: "read",
                        label: "`to_vec`, the read of the tokens",
                    },
                ],
            },
            Part {
                name: "most",
                question: "The CPU spends more of the step",
                options: &[
                    Opt {
                        value: "launches",
                        label: "in the 30 launches together",
                    },
                    Opt {
                        value: "read",
                        label: "in `to_vec`, waiting for the GPU",
                    },
                ],
            },
        ],
        program: wait_program,
        run: wait,
    },
    Prediction {
        id: "profile-layer",
        chapter: "profiling",
        question: "Project the last layer's range, `layer.3`, onto the stream: where is the CPU when the GPU starts that layer's first kernel, and how long is the layer's GPU span against its CPU time?",
        parameter: PARAMETER,
        parts: &[
            Part {
                name: "cpu",
                question: "When the GPU starts `layer.3`'s first kernel, the CPU is in",
                options: &[
                    Opt {
                        value: "layer",
                        label: "`layer.3`, still launching it",
                    },
                    Opt {
                        value: "sample",
                        label: "`sample`",
                    },
                    Opt {
                        value: "read",
                        label: "`read tokens`, waiting for the step",
                    },
                ],
            },
            Part {
                name: "span",
                question: "`layer.3`'s GPU span against its CPU time",
                options: &[
                    Opt {
                        value: "shorter",
                        label: "under half of it",
                    },
                    Opt {
                        value: "same",
                        label: "half to twice as long",
                    },
                    Opt {
                        value: "longer",
                        label: "over twice as long",
                    },
                ],
            },
        ],
        program: layer_program,
        run: layer,
    },
    Prediction {
        id: "profile-parts",
        chapter: "profiling",
        question: "`layer.0` has two parts, each a range: `attention`, 4 kernels, and `mlp`, 3 kernels with a little more work in all. Which part's work has the longer GPU span?",
        parameter: PARAMETER,
        parts: &[Part {
            name: "gpu",
            question: "The longer GPU span",
            options: &[
                Opt {
                    value: "attention",
                    label: "`attention`",
                },
                Opt {
                    value: "mlp",
                    label: "`mlp`",
                },
            ],
        }],
        program: parts_program,
        run: parts,
    },
];

/// The chapter's step with the layers' and the embedding's kernels scaled
/// as `value` says.
fn shape(value: &str) -> StepShape {
    let scale = |d: Duration| match value {
        "div10" => d / 10,
        _ => d * 10,
    };
    let base = chapter_step();
    StepShape {
        embed: scale(base.embed),
        attention: base.attention.map(scale),
        mlp: base.mlp.map(scale),
        ..base
    }
}

/// `d` as the program writes it: `us(30)`, or `ns(300)` below a µs.
fn duration(d: Duration) -> String {
    match d.as_nanos() % 1000 {
        0 => format!("us({})", d.as_micros()),
        _ => format!("ns({})", d.as_nanos()),
    }
}

/// The profile of the step for `value`, and the lines that read it.
fn program(value: &str, reading: &str) -> String {
    let s = shape(value);
    let list = |ds: &[Duration]| ds.iter().map(|&d| duration(d)).collect::<Vec<_>>();
    format!(
        "// the chapter's step (profile_step::step), its kernels {}\nlet (us, ns) = (Duration::from_micros, Duration::from_nanos);\nlet shape = StepShape {{\n    layers: {},\n    batch: {},\n    embed: {},\n    attention: [{}],\n    mlp: [{}],\n}};\nlet trace = profile(&device, &shape, 1, 2)?; // a step, then 2 profiled\nlet last = |name| trace.ranges.iter().rev().find(|r| r.name == name).unwrap();\n{reading}",
        match value {
            "div10" => "a tenth of the chapter's",
            _ => "10x the chapter's",
        },
        s.layers,
        s.batch,
        duration(s.embed),
        list(&s.attention).join(", "),
        list(&s.mlp).join(", "),
    )
}

fn wait_program(value: &str) -> String {
    program(
        value,
        "let calls = trace.range_entries(last(\"step\")); // 30 launches, then to_vec\n// the longest call; the launches' CPU time in all, against to_vec's",
    )
}

fn layer_program(value: &str) -> String {
    program(
        value,
        "let layer = last(\"layer.3\");\nlet gpu = trace.range_gpu_span(layer, None).unwrap(); // where its kernels ran\n// which range is the CPU in at gpu.start_ns? gpu's length against layer.cpu_ns()?",
    )
}

fn parts_program(value: &str) -> String {
    program(
        value,
        "let layer = last(\"layer.0\");\nfor name in [\"attention\", \"mlp\"] {\n    let part = trace.ranges.iter().find(|r| r.name == name && layer.encloses(r)).unwrap();\n    let gpu = trace.range_gpu_span(part, None).unwrap(); // its kernels, first start to last end\n}",
    )
}

/// The step for `value`, profiled on a fresh device and drawn.
fn profiled(value: &str) -> Result<Live<Trace>, Error> {
    Ok(live(&shape(value))?)
}

/// The last range named `name`.
fn last<'t>(trace: &'t Trace, name: &str) -> Result<&'t Range, Error> {
    trace
        .ranges
        .iter()
        .rev()
        .find(|r| r.name == name)
        .ok_or_else(|| Error::new(format!("the profile has no range `{name}`")))
}

/// The length of the GPU span of `range`'s work, ns.
fn gpu_ns(trace: &Trace, range: &Range) -> Result<f64, Error> {
    let span = trace
        .range_gpu_span(range, None)
        .ok_or_else(|| Error::new(format!("`{}` has no GPU span", range.name)))?;
    Ok((span.end_ns - span.start_ns) as f64)
}

fn wait(value: &str) -> Result<Outcome, Error> {
    let drawn = profiled(value)?;
    let trace = &drawn.run;
    let step = last(trace, "step")?;
    let calls = trace.range_entries(step);
    let launches: u64 = calls
        .iter()
        .filter(|e| e.op == OpKind::Launch)
        .map(|e| e.cpu_ns())
        .sum();
    let read = last(trace, "read tokens")?.cpu_ns();
    let longest = calls
        .iter()
        .max_by_key(|e| e.cpu_ns())
        .ok_or_else(|| Error::new("the step made no call"))?;
    let wall = step.cpu_ns() as f64;
    let (launches, read) = (launches as f64, read as f64);
    let (l, r, w) = (time(launches), time(read), time(wall));
    let longest_right = match longest.op {
        OpKind::Launch => "launch",
        _ => "read",
    };
    let longest_says = match longest_right {
        "read" => vec![
            format!(
                "No launch waits for anything: each only queues its kernel. `to_vec` copies into pageable memory, so it waits until the GPU has run everything queued before it, then for the copy: {} here, the longest call.",
                time(longest.cpu_ns() as f64)
            ),
            format!(
                "`to_vec` is the one call of the step that waits for the GPU (every kernel queued before it, then the copy): {}, longer than any launch.",
                time(longest.cpu_ns() as f64)
            ),
        ],
        _ => vec![
            format!(
                "A launch took {}, longer than `to_vec` this time.",
                time(longest.cpu_ns() as f64)
            ),
            format!(
                "`to_vec` found the GPU nearly done; a launch took {}, longer.",
                time(longest.cpu_ns() as f64)
            ),
        ],
    };
    let most_right = if read > launches { "read" } else { "launches" };
    let most_says = match most_right {
        "read" => vec![
            format!(
                "The launches only queue: {l} in all. The GPU needs far longer for its kernels, so the CPU spends {r} of the {w} step in `to_vec`, waiting: a GPU-bound step."
            ),
            format!(
                "The 30 launches take the CPU {l}; the GPU's kernels take far longer, and the CPU waits for them in `to_vec`: {r} of the {w} step."
            ),
        ],
        _ => vec![
            format!(
                "Each kernel runs in less time than its launch costs the CPU, so the GPU keeps up with the launches, and `to_vec` has only the sampling and the copy to wait for: {r}, against {l} of launches in the {w} step. A launch-bound step."
            ),
            format!(
                "The GPU keeps up with the launches, so by the time the CPU reaches `to_vec` little work is left: {r} in it, {l} in the launches, of a {w} step."
            ),
        ],
    };
    let numbers = [
        ("step, CPU", w.clone()),
        ("the 30 launches", l.clone()),
        ("to_vec", r.clone()),
        ("the longest call", longest.name.clone()),
    ];
    Ok(Outcome::new(view(drawn.svg, &numbers, &range_table(trace)))
        .part(longest_right, longest_says)
        .part(most_right, most_says))
}

fn layer(value: &str) -> Result<Outcome, Error> {
    let drawn = profiled(value)?;
    let trace = &drawn.run;
    let layer = last(trace, "layer.3")?;
    let span = trace
        .range_gpu_span(layer, None)
        .ok_or_else(|| Error::new("`layer.3` has no GPU span"))?;
    let (sample, read) = (last(trace, "sample")?, last(trace, "read tokens")?);
    let at = span.start_ns;
    let cpu_right = if at >= read.cpu_start_ns {
        "read"
    } else if at >= sample.cpu_start_ns {
        "sample"
    } else {
        "layer"
    };
    let into = time(at.saturating_sub(layer.cpu_start_ns) as f64);
    let cpu_says = match cpu_right {
        "read" => {
            let waiting = time(at.saturating_sub(read.cpu_start_ns) as f64);
            vec![
                format!(
                    "The CPU left `layer.3` after its 7 launches; the GPU reached its kernels only once the earlier layers' long kernels had run, {into} after the range opened, when the CPU had been waiting in `read tokens` for {waiting}."
                ),
                format!(
                    "The CPU was in `sample` for one launch only; the GPU reached `layer.3` {into} after its range opened, deep into `read tokens`."
                ),
                format!(
                    "The CPU queued the whole step long before the GPU got there: when `layer.3`'s first kernel started, it had been waiting in `read tokens` for {waiting}."
                ),
            ]
        }
        "sample" => vec![
            format!(
                "The GPU started `layer.3` {into} after its range opened, when the CPU had moved on to `sample`."
            ),
            format!(
                "The GPU started `layer.3` {into} after its range opened, while the CPU launched the sampling."
            ),
            format!(
                "The GPU started `layer.3` {into} after its range opened, before the CPU reached the read."
            ),
        ],
        _ => vec![
            format!(
                "Each kernel ends before the next launch arrives, so the GPU starts each one as soon as it is queued: `layer.3`'s first kernel started {into} after the range opened, while the CPU was still launching the layer."
            ),
            format!(
                "The GPU follows the launches closely here: `layer.3`'s first kernel started {into} after its range opened, before the CPU had left it."
            ),
            format!(
                "The GPU had no backlog: it started `layer.3`'s first kernel {into} after the range opened, while the CPU was still in `layer.3`."
            ),
        ],
    };
    let (gpu, cpu) = ((span.end_ns - span.start_ns) as f64, layer.cpu_ns() as f64);
    let why = match gpu > 2.0 * cpu {
        true => format!(
            "The CPU spends {} launching the layer; its kernels take the GPU {} back to back: the range's projection outlasts the range.",
            time(cpu),
            time(gpu)
        ),
        false => format!(
            "The GPU runs each kernel as its launch arrives, so the layer's GPU span follows its launches: {} on the GPU, {} on the CPU. The span is mostly waiting for launches, not work.",
            time(gpu),
            time(cpu)
        ),
    };
    let (span_right, span_says) = banded(
        gpu / cpu,
        &[(0.5, "shorter"), (2.0, "same"), (f64::INFINITY, "longer")],
        &why,
        "Too short.",
        "Too long.",
    );
    let numbers = [
        ("layer.3, CPU", time(cpu)),
        ("layer.3, GPU span", time(gpu)),
        (
            "its first kernel starts",
            format!("{into} after the range opened"),
        ),
    ];
    Ok(Outcome::new(view(drawn.svg, &numbers, &range_table(trace)))
        .part(cpu_right, cpu_says)
        .part(span_right, span_says))
}

fn parts(value: &str) -> Result<Outcome, Error> {
    let drawn = profiled(value)?;
    let trace = &drawn.run;
    let layer = last(trace, "layer.0")?;
    let part = |name: &str| {
        trace
            .ranges
            .iter()
            .find(|r| r.name == name && layer.encloses(r))
            .ok_or_else(|| Error::new(format!("`layer.0` has no range `{name}`")))
    };
    let (attention, mlp) = (part("attention")?, part("mlp")?);
    let (a_gpu, m_gpu) = (gpu_ns(trace, attention)?, gpu_ns(trace, mlp)?);
    let (a_cpu, m_cpu) = (attention.cpu_ns() as f64, mlp.cpu_ns() as f64);
    let figures = format!(
        "`attention` {} on the GPU ({} on the CPU), `mlp` {} ({}).",
        time(a_gpu),
        time(a_cpu),
        time(m_gpu),
        time(m_cpu)
    );
    let right = if a_gpu > m_gpu { "attention" } else { "mlp" };
    let says = match right {
        "mlp" => vec![
            format!(
                "The GPU runs each part's kernels back to back, so a part's span is its kernels' work, and `mlp` has more of it: {figures} The CPU's time follows the launches, the GPU's the work."
            ),
            format!(
                "With the kernels longer than the launches, a span is its kernels' work: {figures}"
            ),
        ],
        _ => vec![
            format!(
                "Each kernel is over before the next launch arrives, so a part's span follows its launches, and `attention` has one more: {figures} Its kernels' work is not what sets it."
            ),
            format!(
                "`mlp` has more work, but here the work is not what sets a span: the GPU waits for each launch, and `attention` makes 4 to `mlp`'s 3. {figures}"
            ),
        ],
    };
    let numbers = [
        ("attention, GPU span", time(a_gpu)),
        ("attention, CPU", time(a_cpu)),
        ("mlp, GPU span", time(m_gpu)),
        ("mlp, CPU", time(m_cpu)),
    ];
    Ok(Outcome::new(view(drawn.svg, &numbers, &range_table(trace))).part(right, says))
}
