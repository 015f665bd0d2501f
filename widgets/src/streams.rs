//! The streams chapter's widget: chunks copied to the GPU and summed, on one
//! stream or on a copy stream and compute streams, from pinned or pageable
//! memory, in one or more device slots ([`workbook_benches::streams::schedule`]).

use crate::controls::{Spec, Values, choice, range};
use crate::timeline::{busy, is_kernel, length, overlap};
use crate::view::{Error, View, percent, time};
use gpu::OpKind;
use workbook_benches::figures::streams::{OVERLAPPED, live};
use workbook_benches::streams::{CHUNK, Schedule, Source};

/// Chunks, streams, slots and source; the defaults are the two-stream figure's.
pub(crate) fn spec() -> Spec {
    Spec {
        figure: "streams-copy-overlap.svg",
        controls: vec![
            range(
                "chunks",
                "chunks of 16 MiB",
                (1, 8, 1),
                OVERLAPPED.chunks as i64,
                "",
            ),
            range(
                "streams",
                "streams",
                (1, 3, 1),
                OVERLAPPED.streams as i64,
                "",
            ),
            range(
                "slots",
                "device slots",
                (1, 4, 1),
                OVERLAPPED.slots as i64,
                "",
            ),
            choice(
                "source",
                "host memory",
                &[("pinned", "pinned"), ("pageable", "pageable (a Vec)")],
            ),
        ],
    }
}

/// The schedule the values describe.
fn schedule(values: &Values) -> Schedule {
    Schedule {
        chunks: values.int("chunks") as usize,
        streams: values.int("streams") as usize,
        slots: values.int("slots") as usize,
        source: match values.text("source") {
            "pageable" => Source::Pageable,
            _ => Source::Pinned,
        },
    }
}

/// Runs the schedule: the timeline, the total, the overlap, the races.
pub(crate) fn render(values: &Values) -> Result<View, Error> {
    let plan = schedule(values);
    let drawn = live(&plan)?;
    let trace = drawn.device.trace();
    let copies = busy(&trace, |e| {
        e.op == OpKind::CopyHostToDevice && e.bytes > 1 << 20
    });
    let sums = busy(&trace, is_kernel);
    let under = overlap(&copies, &sums);
    let right = drawn
        .run
        .sums
        .iter()
        .filter(|&&s| s == CHUNK as f32)
        .count();
    let races = drawn.device.take_races();
    let report = match races.first() {
        None => "The race checker finds no race: every access to a slot is ordered.".to_string(),
        Some(first) => format!(
            "The race checker reports {} race{} (the first below):\n\n{first}",
            races.len(),
            if races.len() == 1 { "" } else { "s" }
        ),
    };
    Ok(View::new(drawn.svg)
        .number(
            "total, first copy to the sums on the host",
            time(drawn.run.loop_ns),
        )
        .number(
            "copy time under a sum",
            format!(
                "{} of {} ({})",
                time(under as f64),
                time(length(&copies) as f64),
                percent(under as f64, length(&copies) as f64)
            ),
        )
        .number(
            "CPU time inside the copy calls",
            time(drawn.run.copy_cpu_ns),
        )
        .number("sums right", format!("{right} of {}", plan.chunks))
        .number("races", races.len().to_string())
        .report(report))
}
