//! The streams chapter's timelines: four 16 MiB chunks copied from pinned
//! memory and summed, on one stream and on a copy and a compute stream; and
//! the same drawing for any [`Schedule`] (the chapter's live timeline).

use super::{Live, live_device};
use crate::streams::{Run, Schedule, Source, schedule};
use gpu::{OpKind, Result, SvgOptions};

/// Length of the window drawn, ns (longer when the run is).
const WINDOW_NS: u64 = 2_700_000;

/// The schedule of the two-stream figure: four chunks, two slots, pinned.
pub const OVERLAPPED: Schedule = Schedule {
    chunks: 4,
    streams: 2,
    slots: 2,
    source: Source::Pinned,
};

/// The schedule of the one-stream figure.
const SERIAL: Schedule = Schedule {
    chunks: 4,
    streams: 1,
    slots: 1,
    source: Source::Pinned,
};

/// Runs `plan` on a fresh virtual GPU and draws it: from just before the
/// first chunk's copy, for 2.7 ms or until the run ends.
pub fn live(plan: &Schedule) -> Result<Live<Run>> {
    let device = live_device()?;
    let run = schedule(&device, plan)?;
    let mut trace = device.trace();
    // The pinned chunks are freed when the run ends: teardown, not the
    // pattern the figure shows.
    trace.entries.retain(|e| e.op != OpKind::FreePinned);
    let chunk_copy = |e: &&gpu::TraceEntry| e.op == OpKind::CopyHostToDevice && e.bytes > 1 << 20;
    let first_copy = trace
        .entries
        .iter()
        .find(chunk_copy)
        .map_or(0, |e| e.cpu_start_ns);
    let last_end = trace
        .entries
        .iter()
        .map(|e| e.gpu.map_or(e.cpu_end_ns, |g| g.end_ns))
        .max();
    let start = first_copy.saturating_sub(20_000);
    let length = WINDOW_NS.max(last_end.unwrap_or(0).saturating_sub(start) + 100_000);
    let svg = trace.to_svg(&SvgOptions {
        width: 1000,
        title: Some(title(plan)),
        window_ns: Some((start, start + length)),
    });
    Ok(Live { svg, run, device })
}

/// The heading of `plan`'s timeline.
pub fn title(plan: &Schedule) -> String {
    let source = match plan.source {
        Source::Pinned => "pinned",
        Source::Pageable => "pageable",
    };
    let slots = match plan.slots {
        1 => "one device slot".to_string(),
        n => format!("{} device slots", number(n)),
    };
    match plan.streams {
        0 | 1 if plan.slots == 1 => {
            format!("One stream: copy chunk, sum chunk, copy, sum ({source} source)")
        }
        0 | 1 => format!("One stream, {slots}: copy chunk, sum chunk, copy, sum ({source} source)"),
        2 => format!("Copy stream and compute stream, {slots}, events both ways ({source} source)"),
        n => format!(
            "Copy stream and {} compute streams, {slots}, events both ways ({source} source)",
            number(n - 1)
        ),
    }
}

/// `n` in words, up to nine.
fn number(n: usize) -> String {
    let words = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    ];
    words
        .get(n)
        .map_or_else(|| n.to_string(), |w| (*w).to_string())
}

/// One stream: each copy waits for the previous sum, each sum for its copy.
pub(super) fn serial() -> String {
    live(&SERIAL)
        .expect("the chunks run on the virtual GPU")
        .svg
}

/// Two streams, two slots: chunk i+1's copy runs under chunk i's sum.
pub(super) fn overlapped() -> String {
    live(&OVERLAPPED)
        .expect("the chunks run on the virtual GPU")
        .svg
}
