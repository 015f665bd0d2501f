//! The hidden-syncs chapter's predictions: the serving loop of
//! [`workbook_benches::sync_loop::run_with`] (the chapter's widget), 2 ms of
//! GPU and 0.5 ms of CPU a step, with one or two of exercise 104's hidden
//! syncs switched on.

use super::{Opt, Outcome, Parameter, Part, Prediction, view};
use crate::view::{Error, percent, time};
use workbook_benches::figures::Live;
use workbook_benches::figures::hidden_syncs::{CONFIG, live};
use workbook_benches::sync_loop::{SyncedRun, Syncs};

pub(super) const PREDICTIONS: &[Prediction] = &[
    Prediction {
        id: "hidden-syncs-item",
        chapter: "hidden-syncs",
        question: "The serving loop counts the tokens generated: is its step time (measured with events) within 10 % of the decoder's own 2 ms?",
        parameter: Parameter {
            label: "the count is read",
            options: &[
                Opt {
                    value: "window",
                    label: "once per window of 4 steps, through pinned memory",
                },
                Opt {
                    value: "item",
                    label: "every step, with `.item()`",
                },
            ],
        },
        parts: &[Part {
            name: "step",
            question: "The step time against the decoder alone",
            options: &[
                Opt {
                    value: "within",
                    label: "within 10 % of it",
                },
                Opt {
                    value: "over",
                    label: "more than 10 % over it",
                },
            ],
        }],
        program,
        run: item,
    },
    Prediction {
        id: "hidden-syncs-waits",
        chapter: "hidden-syncs",
        question: "The sync report flags this call as one that can block. In the steady state, does it actually make the CPU wait for the GPU?",
        parameter: Parameter {
            label: "the call",
            options: &[
                Opt {
                    value: "pageable_inputs",
                    label: "the 64 bytes of inputs sent from a `Vec`",
                },
                Opt {
                    value: "read_done",
                    label: "the done flags read into a `Vec`",
                },
                Opt {
                    value: "raw_scratch",
                    label: "a raw scratch segment freed after the step",
                },
            ],
        },
        parts: &[Part {
            name: "waits",
            question: "Does the CPU wait in it?",
            options: &[
                Opt {
                    value: "no",
                    label: "no: it returns at once",
                },
                Opt {
                    value: "yes",
                    label: "yes: the CPU waits for the GPU every step",
                },
            ],
        }],
        program,
        run: waits,
    },
    Prediction {
        id: "hidden-syncs-timer",
        chapter: "hidden-syncs",
        question: "The loop times each step with a CPU timer around its calls. What is the median of those per-step times, against the real step time (events)?",
        parameter: Parameter {
            label: "the loop",
            options: &[
                Opt {
                    value: "cpu_timer",
                    label: "one wait per window",
                },
                Opt {
                    value: "cpu_timer+item",
                    label: "an `.item()` every step",
                },
            ],
        },
        parts: &[Part {
            name: "timer",
            question: "The step time the CPU timer reports",
            options: &[
                Opt {
                    value: "about",
                    label: "about the real step time",
                },
                Opt {
                    value: "less",
                    label: "far less: it times the submission",
                },
            ],
        }],
        program,
        run: timer,
    },
];

/// The syncs `value` switches on (names joined by `+`).
fn syncs(value: &str) -> Syncs {
    let on = |name: &str| value.split('+').any(|v| v == name);
    Syncs {
        item: on("item"),
        pageable_inputs: on("pageable_inputs"),
        raw_scratch: on("raw_scratch"),
        read_done: on("read_done"),
        cpu_ordered_copy: on("cpu_ordered_copy"),
        cpu_timer: on("cpu_timer"),
    }
}

/// The loop's step with the syncs of `value`.
fn program(value: &str) -> String {
    let s = syncs(value);
    let mut text = format!(
        "// the serving loop (sync_loop::run_with): {} steps, windows of {}\nfor t in 0..{} {{\n",
        CONFIG.steps, CONFIG.window, CONFIG.steps
    );
    if s.cpu_timer {
        text += "    let started = Instant::now(); // a CPU timer\n";
    }
    if s.pageable_inputs {
        text += "    s.copy_from_host(&inputs, &tokens)?; // 16 i32 from a Vec\n";
    }
    if s.raw_scratch {
        text += "    let scratch = device.alloc_segment(64)?;\n";
    }
    if s.read_done {
        text += "    let flags = s.to_vec(&done)?; // to size the next batch\n";
    }
    text += "    device.host_work(Duration::from_micros(500)); // the scheduler\n    s.decode_step(&decoder, &tokens, &out)?; // 2 ms on the GPU\n    s.count_eq(&done, 0, &counter)?;\n";
    if s.item {
        text += "    total += s.to_vec(&counter)?[0]; // `.item()`\n    s.fill(&counter, 0)?;\n";
    } else {
        text += "    if (t + 1) % 4 == 0 {\n        s.copy_to_pinned(&counter, &pinned)?;\n        s.fill(&counter, 0)?;\n        s.record_event()?.synchronize()?; // one wait per window\n    }\n";
    }
    if s.raw_scratch {
        text += "    s.copy(&out, scratch.view(0, 16)?)?;\n    device.free_segment(scratch)?;\n";
    }
    if s.cpu_timer {
        text += "    times.push(started.elapsed());\n";
    }
    text + "}"
}

/// The numbers every prediction of the loop shows.
fn numbers(run: &SyncedRun) -> Vec<(&'static str, String)> {
    let t = &run.times;
    let ms = |ms: f64| time(ms * 1e6);
    vec![
        ("step time (events)", ms(t.step_ms)),
        ("the decoder alone: the limit", ms(t.limit_ms)),
        (
            "over the limit",
            percent(t.step_ms - t.limit_ms, t.limit_ms),
        ),
        ("step time by the CPU timer, median", ms(run.cpu_timer_ms)),
    ]
}

fn run(value: &str) -> Result<Live<SyncedRun>, Error> {
    Ok(live(&syncs(value))?)
}

fn item(value: &str) -> Result<Outcome, Error> {
    let drawn = run(value)?;
    let t = drawn.run.times;
    let over = percent(t.step_ms - t.limit_ms, t.limit_ms);
    let step = time(t.step_ms * 1e6);
    let within = t.step_ms <= t.limit_ms * 1.1;
    let says = match within {
        true => vec![
            format!(
                "The CPU runs a whole window ahead and waits once per window, so the GPU always has the next step queued: {step} a step, {over} over the decoder."
            ),
            format!(
                "Only one wait per window of {}: the CPU queues the next steps while the GPU works, and the step is {step}, {over} over the decoder.",
                CONFIG.window
            ),
        ],
        false => vec![
            format!(
                "The read every step drains the queue, so the CPU's work is no longer hidden: {step} a step, {over} over the decoder."
            ),
            format!(
                "`.item()` waits for the step's count every step; the GPU then idles while the CPU does the next step's 0.5 ms of scheduling: {step} a step, {over} over the decoder."
            ),
        ],
    };
    let right = if within { "within" } else { "over" };
    Ok(Outcome::new(view(drawn.svg, &numbers(&drawn.run), "")).part(right, says))
}

fn waits(value: &str) -> Result<Outcome, Error> {
    let drawn = run(value)?;
    let trace = drawn.device.trace();
    let marks = &drawn.run.marks;
    let steady = trace.since(marks[CONFIG.window]);
    // The longest blocking call of the habit in the steady state (the
    // window's own wait is an event's synchronize, not one of these).
    let op = match value {
        "pageable_inputs" => gpu::OpKind::CopyHostToDevice,
        "read_done" => gpu::OpKind::CopyDeviceToHost,
        _ => gpu::OpKind::FreeSegment,
    };
    let longest = steady
        .iter()
        .filter(|e| e.op == op && e.blocking.is_some())
        .map(|e| e.cpu_ns())
        .max()
        .unwrap_or(0);
    let waited = time(longest as f64);
    let wait = longest > 50_000;
    let why = match value {
        "pageable_inputs" => format!(
            "A copy from pageable memory can block, but 64 bytes travel inline in the command stream (up to `inline_bytes`, 64 KiB on the H200), not through a staging slot: the call returns at once, in {waited} at most."
        ),
        "read_done" => format!(
            "Reading device memory into a `Vec` must wait until the GPU has written it, that is for the queue ahead of it: up to {waited} a step."
        ),
        _ => format!(
            "`free_segment` is `cuMemFree`, which waits for the whole device to be idle before it returns the memory: up to {waited} a step."
        ),
    };
    let says = match wait {
        true => vec![format!("It did wait. {why}"), why],
        false => vec![why.clone(), format!("It did not wait. {why}")],
    };
    let right = if wait { "yes" } else { "no" };
    Ok(Outcome::new(view(drawn.svg, &numbers(&drawn.run), "")).part(right, says))
}

fn timer(value: &str) -> Result<Outcome, Error> {
    let drawn = run(value)?;
    let r = &drawn.run;
    let (timer, events) = (time(r.cpu_timer_ms * 1e6), time(r.times.step_ms * 1e6));
    let about = r.cpu_timer_ms >= 0.8 * r.times.step_ms;
    let says = match about {
        true => vec![
            format!(
                "Every step waits for the GPU in `.item()`, so the CPU timer spans the GPU's work too: it reports {timer} against {events} by events (the timer is right here only because of the sync)."
            ),
            format!(
                "The `.item()` makes each step wait for the GPU, so the time around the calls includes the GPU's: {timer} against {events}."
            ),
        ],
        false => vec![
            format!(
                "Launches return at once, so the median timer measures the submission and the CPU's own work: {timer} against {events} by events. (The window's wait lands in one step's timer in four, so the mean over a window comes back to about the real step time: time windows, not steps.)"
            ),
            format!(
                "Without a wait in the step, the CPU timer stops before the GPU has run it: {timer} against {events} by events."
            ),
        ],
    };
    let right = if about { "about" } else { "less" };
    Ok(Outcome::new(view(drawn.svg, &numbers(r), "")).part(right, says))
}
