//! The allocator chapter's predictions: short scripts run on exercise 101's
//! reference caching allocator
//! ([`workbook_benches::figures::allocator::script`], the chapter's widget),
//! on a 64 MiB device.

use super::{Opt, Outcome, Parameter, Part, Prediction, view};
use crate::view::Error;
use workbook_benches::figures::allocator::script::{self, RECORD_STREAM_DEVICE_MIB, Scripted};

const MIB: usize = 1 << 20;

pub(super) const PREDICTIONS: &[Prediction] = &[
    Prediction {
        id: "allocator-rounding",
        chapter: "allocator",
        question: "A first `malloc` on a fresh allocator: how much memory does it reserve from the driver?",
        parameter: Parameter {
            label: "size",
            options: &[
                Opt {
                    value: "1 KiB",
                    label: "1 KiB",
                },
                Opt {
                    value: "3 MiB",
                    label: "3 MiB",
                },
                Opt {
                    value: "11 MiB",
                    label: "11 MiB",
                },
            ],
        },
        parts: &[Part {
            name: "reserved",
            question: "Reserved after the `malloc`",
            options: &[
                Opt {
                    value: "exact",
                    label: "the size itself (rounded to 512 bytes)",
                },
                Opt {
                    value: "2mib",
                    label: "2 MiB: a small-pool segment",
                },
                Opt {
                    value: "20mib",
                    label: "20 MiB: a large-pool segment",
                },
                Opt {
                    value: "round2",
                    label: "the size rounded up to 2 MiB: a segment of its own",
                },
            ],
        }],
        program: |size| format!("x = malloc({size}, s0)"),
        run: rounding,
    },
    Prediction {
        id: "allocator-stream",
        chapter: "allocator",
        question: "`x` is freed on stream s0, then `y` of the same size is allocated: does `y` get `x`'s memory?",
        parameter: Parameter {
            label: "y's stream",
            options: &[
                Opt {
                    value: "s1",
                    label: "s1, another stream",
                },
                Opt {
                    value: "s0",
                    label: "s0, the stream x was allocated on",
                },
            ],
        },
        parts: &[Part {
            name: "reuse",
            question: "Does `y` reuse `x`'s block?",
            options: &[
                Opt {
                    value: "yes",
                    label: "yes: the cached block is handed out again",
                },
                Opt {
                    value: "no",
                    label: "no: the allocator reserves a new segment",
                },
            ],
        }],
        program: stream_script,
        run: stream,
    },
    Prediction {
        id: "allocator-record",
        chapter: "allocator",
        question: "Right after `free(x)`, while any other stream that uses `x` still runs a long kernel reading it, is `x`'s block free for the next `malloc` on s0?",
        parameter: Parameter {
            label: "before the free",
            options: &[
                Opt {
                    value: "record",
                    label: "`record_stream(x, s1)`: s1 uses x too",
                },
                Opt {
                    value: "none",
                    label: "nothing: only s0 used x",
                },
            ],
        },
        parts: &[Part {
            name: "free",
            question: "Is the block free right after `free(x)`?",
            options: &[
                Opt {
                    value: "free",
                    label: "yes: it is back in s0's pool",
                },
                Opt {
                    value: "pending",
                    label: "no: it is pending until s1's work is done",
                },
            ],
        }],
        program: record_script,
        run: record,
    },
];

/// Runs `text` on a 64 MiB device.
fn run(text: &str) -> Result<Scripted, Error> {
    script::run(text, RECORD_STREAM_DEVICE_MIB).map_err(Error::new)
}

/// `bytes` as MiB or KiB.
fn size(bytes: usize) -> String {
    match bytes {
        b if b % MIB == 0 => format!("{} MiB", b / MIB),
        b => format!("{} KiB", b >> 10),
    }
}

/// The allocator's state after the script.
fn numbers(done: &Scripted) -> Vec<(&'static str, String)> {
    vec![
        ("allocated", size(done.allocated)),
        ("reserved", size(done.reserved)),
        ("segments", done.segments.to_string()),
        ("pending frees", done.pending.to_string()),
    ]
}

fn rounding(value: &str) -> Result<Outcome, Error> {
    let done = run(&format!("x = malloc({value}, s0)"))?;
    let (reserved, allocated) = (size(done.reserved), size(done.allocated));
    let right = match done.reserved {
        r if r == 2 * MIB && done.allocated <= MIB => "2mib",
        r if r == 20 * MIB && done.allocated < 10 * MIB => "20mib",
        r if r == done.allocated.div_ceil(2 * MIB) * 2 * MIB && done.allocated >= 10 * MIB => {
            "round2"
        }
        _ => "exact",
    };
    let why = match right {
        "2mib" => format!(
            "Requests of 1 MiB or less come from the small pool, which asks the driver for 2 MiB segments and splits them: {reserved} reserved for a request of {value} ({allocated} allocated)."
        ),
        "20mib" => format!(
            "Requests over 1 MiB and under 10 MiB come from the large pool, which asks the driver for 20 MiB segments to split among several of them: {reserved} reserved for a request of {value} ({allocated} allocated)."
        ),
        _ => format!(
            "Requests of 10 MiB or more get a segment of their own, their size rounded up to 2 MiB: {reserved} reserved for a request of {value} ({allocated} allocated)."
        ),
    };
    let says = [
        "The allocator never asks the driver for exactly the size: `cudaMalloc` is slow and synchronizing, so it reserves segments to split and cache.",
        "Only requests of 1 MiB or less use the small pool's 2 MiB segments.",
        "Only requests over 1 MiB and under 10 MiB share 20 MiB large-pool segments.",
        "Only requests of 10 MiB or more get a segment of their own.",
    ];
    let options = ["exact", "2mib", "20mib", "round2"];
    let says = options
        .iter()
        .zip(says)
        .map(|(o, s)| match *o == right {
            true => why.clone(),
            false => format!("{s} {why}"),
        })
        .collect();
    Ok(Outcome::new(view(done.svg.clone(), &numbers(&done), "")).part(right, says))
}

/// The script of `allocator-stream`.
fn stream_script(stream: &str) -> String {
    format!("x = malloc(1 MiB, s0)\nfree(x)\ny = malloc(1 MiB, {stream})")
}

fn stream(value: &str) -> Result<Outcome, Error> {
    let done = run(&stream_script(value))?;
    let reused = done.segments == 1;
    let state = format!(
        "{} reserved in {} segment{}",
        size(done.reserved),
        done.segments,
        if done.segments == 1 { "" } else { "s" }
    );
    let says = match reused {
        true => vec![
            format!(
                "A freed block goes back to the pool of the stream it was allocated on, and `y` asks that same stream, s0: it gets `x`'s block ({state})."
            ),
            format!(
                "The cache serves a `malloc` on s0 from s0's free blocks, and `x`'s is one: no new segment ({state})."
            ),
        ],
        false => vec![
            format!(
                "The allocator caches blocks per stream: `x`'s block is free only for s0, and `y` on s1 needs a segment of its own ({state})."
            ),
            format!(
                "Blocks are cached per stream, so s1 cannot take s0's free block without an ordering between them: the allocator reserves new memory ({state})."
            ),
        ],
    };
    let right = if reused { "yes" } else { "no" };
    Ok(Outcome::new(view(done.svg.clone(), &numbers(&done), "")).part(right, says))
}

/// The script of `allocator-record`.
fn record_script(value: &str) -> String {
    match value {
        "record" => {
            "x = malloc(1 MiB, s0)\nrecord_stream(x, s1) # s1 reads x in a long kernel, still running\nfree(x)".into()
        }
        _ => "x = malloc(1 MiB, s0)\nfree(x)".into(),
    }
}

fn record(value: &str) -> Result<Outcome, Error> {
    let done = run(&record_script(value))?;
    let pending = done.pending > 0;
    let says = match pending {
        true => vec![
            format!(
                "`record_stream` told the allocator that s1 uses `x`, so `free` records an event on s1 and keeps the block pending ({} pending) until that event completes.",
                done.pending
            ),
            "`free` after `record_stream` records an event on s1 and holds the block until it completes: s1 is still reading it. (Had s1 finished its work before the next `malloc`, the allocator would find the event complete there and hand the block out: it checks its pending events at each `malloc`.)".to_string(),
        ],
        false => vec![
            "Only s0 used `x`, and s0's later work is ordered after everything before the free: the block goes straight back to s0's pool (0 pending).".to_string(),
            "Nothing told the allocator that another stream uses `x`, so there is no event to wait for: the block is free for s0 at once (0 pending).".to_string(),
        ],
    };
    let right = if pending { "pending" } else { "free" };
    Ok(Outcome::new(view(done.svg.clone(), &numbers(&done), "")).part(right, says))
}
