//! The streams chapter's predictions: chunks copied to the GPU and summed
//! ([`workbook_benches::streams::schedule`], the chapter's widget), on one
//! stream or two, in one slot or two, from pinned or pageable memory.

use super::{Opt, Outcome, Parameter, Part, Prediction, banded, view};
use crate::timeline::{busy, is_kernel, length, overlap};
use crate::view::{Error, percent, time};
use gpu::OpKind;
use workbook_benches::figures::Live;
use workbook_benches::figures::streams::live;
use workbook_benches::streams::{CHUNK, Run, Schedule, Source};

/// Chunks copied and summed.
const CHUNKS: usize = 4;

const YES_NO: &[Opt] = &[
    Opt {
        value: "yes",
        label: "yes",
    },
    Opt {
        value: "no",
        label: "no",
    },
];

pub(super) const PREDICTIONS: &[Prediction] = &[
    Prediction {
        id: "streams-overlap",
        chapter: "streams-and-events",
        question: "Four 16 MiB chunks from pinned memory, each copied to the GPU and then summed: does a chunk's copy run while the previous chunk is being summed?",
        parameter: Parameter {
            label: "streams",
            options: &[
                Opt {
                    value: "2",
                    label: "a copy stream and a compute stream",
                },
                Opt {
                    value: "1",
                    label: "one stream",
                },
            ],
        },
        parts: &[Part {
            name: "overlap",
            question: "Does a copy overlap a sum on the GPU?",
            options: YES_NO,
        }],
        program: |streams| program(&plan("streams", streams)),
        run: |streams| overlaps(&plan("streams", streams)),
    },
    Prediction {
        id: "streams-race",
        chapter: "streams-and-events",
        question: "The two-stream program with its events, but the chunks share the device slots in turn: does the race checker find a race?",
        parameter: Parameter {
            label: "device slots",
            options: &[
                Opt {
                    value: "2",
                    label: "two slots",
                },
                Opt {
                    value: "1",
                    label: "one slot",
                },
            ],
        },
        parts: &[Part {
            name: "race",
            question: "Does the race checker report a race?",
            options: YES_NO,
        }],
        program: |slots| program(&plan("slots", slots)),
        run: |slots| race(&plan("slots", slots)),
    },
    Prediction {
        id: "streams-pageable",
        chapter: "streams-and-events",
        question: "The two-stream program, its chunks copied from pinned memory or from a `Vec`: how long is the CPU inside the four copy calls?",
        parameter: Parameter {
            label: "host memory",
            options: &[
                Opt {
                    value: "pinned",
                    label: "pinned",
                },
                Opt {
                    value: "pageable",
                    label: "pageable (a `Vec`)",
                },
            ],
        },
        parts: &[Part {
            name: "cpu",
            question: "CPU time inside the four copy calls",
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
        }],
        program: |source| program(&plan("source", source)),
        run: |source| pageable(&plan("source", source)),
    },
];

/// The chapter's two-stream schedule with `name` set to `value`.
fn plan(name: &str, value: &str) -> Schedule {
    let mut plan = Schedule::two_streams(CHUNKS, Source::Pinned);
    match (name, value) {
        ("streams", "1") => {
            plan.streams = 1;
            plan.slots = 1;
        }
        ("slots", "1") => plan.slots = 1,
        ("source", "pageable") => plan.source = Source::Pageable,
        _ => {}
    }
    plan
}

/// The loop of `plan`, as `streams::schedule` runs it.
fn program(plan: &Schedule) -> String {
    let copy = match plan.source {
        Source::Pinned => "copy_from_pinned(&pinned, slot)",
        Source::Pageable => "copy_from_host(&vec, slot)",
    };
    let mib = (CHUNK * size_of::<f32>()) >> 20;
    if plan.streams == 1 {
        return format!(
            "// {CHUNKS} chunks of {mib} MiB on one stream, one slot (streams::schedule)\nfor i in 0..{CHUNKS} {{\n    s.{copy}?;\n    s.sum_after(COMPUTE, slot, sums.slice(i..i + 1))?;\n}}\nlet sums = s.to_vec(&sums)?;"
        );
    }
    let slot = match plan.slots {
        1 => "&slots[0]; // one slot for every chunk".to_string(),
        n => format!("&slots[i % {n}];"),
    };
    format!(
        "// {CHUNKS} chunks of {mib} MiB: a copy stream and a compute stream (streams::schedule)\nfor i in 0..{CHUNKS} {{\n    let slot = {slot}\n    copy.wait_event(&consumed[i % 2])?; // chunk i - 2 is summed\n    copy.{copy}?;\n    copied[i % 2].record(&copy)?;\n    compute.wait_event(&copied[i % 2])?; // chunk i has arrived\n    compute.sum_after(COMPUTE, slot, sums.slice(i..i + 1))?;\n    consumed[i % 2].record(&compute)?;\n}}\nlet sums = compute.to_vec(&sums)?;"
    )
}

/// Runs `plan`: the run, its copy and sum intervals, and the overlap.
struct Ran {
    drawn: Live<Run>,
    copies: u64,
    under: u64,
}

fn ran(plan: &Schedule) -> Result<Ran, Error> {
    let drawn = live(plan)?;
    let trace = drawn.device.trace();
    let copies = busy(&trace, |e| {
        e.op == OpKind::CopyHostToDevice && e.bytes > 1 << 20
    });
    let sums = busy(&trace, is_kernel);
    let under = overlap(&copies, &sums);
    Ok(Ran {
        copies: length(&copies),
        under,
        drawn,
    })
}

/// The numbers every prediction of the loop shows.
fn numbers(r: &Ran) -> Vec<(&'static str, String)> {
    vec![
        (
            "total, first copy to the sums on the host",
            time(r.drawn.run.loop_ns),
        ),
        (
            "copy time under a sum",
            format!("{} of {}", time(r.under as f64), time(r.copies as f64)),
        ),
        (
            "CPU time inside the copy calls",
            time(r.drawn.run.copy_cpu_ns),
        ),
    ]
}

fn overlaps(plan: &Schedule) -> Result<Outcome, Error> {
    let r = ran(plan)?;
    let share = percent(r.under as f64, r.copies as f64);
    let total = time(r.drawn.run.loop_ns);
    let (right, says) = match r.under > 0 {
        true => (
            "yes",
            vec![
                format!(
                    "The copy stream runs chunk i + 1's copy while the compute stream sums chunk i: {share} of the copy time ran under a sum, and the whole run took {total}."
                ),
                format!(
                    "On two streams the copy engine and the SMs work at once: {share} of the copy time ran under a sum ({total} in all). Only work on one stream runs in order."
                ),
            ],
        ),
        false => (
            "no",
            vec![
                format!(
                    "One stream runs its work in order: each copy waits for the sum before it, so none of the copy time ran under a sum, and the run took {total}; overlap needs a second stream."
                ),
                format!(
                    "None of the copy time ran under a sum ({total} in all): on one stream each operation starts when the one before it has finished."
                ),
            ],
        ),
    };
    let numbers = numbers(&r);
    Ok(Outcome::new(view(r.drawn.svg, &numbers, "")).part(right, says))
}

fn race(plan: &Schedule) -> Result<Outcome, Error> {
    let r = ran(plan)?;
    let races = r.drawn.device.take_races();
    let right_sums = r
        .drawn
        .run
        .sums
        .iter()
        .filter(|&&s| s == CHUNK as f32)
        .count();
    let sums = match (right_sums, races.is_empty()) {
        (CHUNKS, false) => {
            "the sums still came out right this time, which an unordered access does not promise"
                .to_string()
        }
        _ => format!("{right_sums} of {CHUNKS} sums were right"),
    };
    let report = races.first().map(ToString::to_string).unwrap_or_default();
    let (right, says) = match races.is_empty() {
        false => (
            "yes",
            vec![
                format!(
                    "The events are double buffering's: the copy of chunk i waits only for the sum of chunk i - 2, so with one slot it overwrites chunk i - 1 while it is still being summed; the checker reports {} race{}, and {sums}.",
                    races.len(),
                    if races.len() == 1 { "" } else { "s" }
                ),
                format!(
                    "The events order each copy after the sum two chunks back, which protects a slot only when there are two: in one slot the next copy overwrites the chunk being summed ({} race{} reported; {sums}).",
                    races.len(),
                    if races.len() == 1 { "" } else { "s" }
                ),
            ],
        ),
        true => (
            "no",
            vec![
                format!(
                    "Every access to a slot is ordered: the copy into a slot waits for the sum that last read it (the event two chunks back), so the checker finds nothing and {sums}."
                ),
                format!(
                    "With two slots the event two chunks back is exactly the last reader of the slot, so no access is unordered; {sums}."
                ),
            ],
        ),
    };
    let numbers = numbers(&r);
    Ok(Outcome::new(view(r.drawn.svg, &numbers, &report)).part(right, says))
}

fn pageable(plan: &Schedule) -> Result<Outcome, Error> {
    let r = ran(plan)?;
    let cpu = r.drawn.run.copy_cpu_ns;
    let why = match plan.source {
        Source::Pinned => format!(
            "A copy from pinned memory only queues a DMA and returns: the four calls took {} of CPU in all.",
            time(cpu)
        ),
        Source::Pageable => format!(
            "From a `Vec` the driver first stages each 16 MiB through its pinned buffer, with the CPU inside the call until the last piece is staged: the four calls took {}.",
            time(cpu)
        ),
    };
    let (right, says) = banded(
        cpu,
        &[
            (100e3, "lt100us"),
            (1e6, "100us-1ms"),
            (f64::INFINITY, "gt1ms"),
        ],
        &why,
        "Too short.",
        "Too long.",
    );
    let numbers = numbers(&r);
    Ok(Outcome::new(view(r.drawn.svg, &numbers, "")).part(right, says))
}
