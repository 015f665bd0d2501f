//! The streams chapter's timelines: four 16 MiB chunks copied from pinned
//! memory and summed, on one stream and on a copy and a compute stream.

use crate::streams::{Source, one_stream, two_streams};
use gpu::{Backend, Device, DeviceOptions, OpKind, SvgOptions};

/// Length of the window drawn, ns.
const WINDOW_NS: u64 = 2_700_000;

fn timeline(two: bool, title: &str) -> String {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })
    .expect("the virtual GPU opens");
    if two {
        two_streams(&device, 4, Source::Pinned).map(drop)
    } else {
        one_stream(&device, 4).map(drop)
    }
    .expect("the chunks run on the virtual GPU");
    let mut trace = device.trace();
    // The pinned chunks are freed when the run ends: teardown, not the
    // pattern the figure shows.
    trace.entries.retain(|e| e.op != OpKind::FreePinned);
    let first_copy = trace
        .entries
        .iter()
        .find(|e| e.op == OpKind::CopyHostToDevice && e.bytes > 1 << 20)
        .expect("a chunk copy")
        .cpu_start_ns;
    let start = first_copy.saturating_sub(20_000);
    trace.to_svg(&SvgOptions {
        width: 1000,
        title: Some(title.into()),
        window_ns: Some((start, start + WINDOW_NS)),
    })
}

/// One stream: each copy waits for the previous sum, each sum for its copy.
pub(super) fn serial() -> String {
    timeline(
        false,
        "One stream: copy chunk, sum chunk, copy, sum (pinned source)",
    )
}

/// Two streams, two slots: chunk i+1's copy runs under chunk i's sum.
pub(super) fn overlapped() -> String {
    timeline(
        true,
        "Copy stream and compute stream, two device slots, events both ways (pinned source)",
    )
}
