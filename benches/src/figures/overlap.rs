//! The sampling chapter's timelines: the naive decode loop and the
//! overlapped one (exercise 102's solution) on the virtual GPU, the same
//! workload (2 ms of GPU and 1.5 ms of CPU per step), the same 12 ms window
//! from the third step on.

use crate::sampling::{Loop, launches, run};
use gpu::{Backend, Device, DeviceOptions, SvgOptions};
use std::time::Duration;

/// Length of the window drawn, ns.
const WINDOW_NS: u64 = 12_000_000;

fn timeline(which: Loop, title: &str) -> String {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })
    .expect("the virtual GPU opens");
    let trace = run(
        &device,
        which,
        Duration::from_millis(2),
        Duration::from_micros(1500),
        12,
    )
    .expect("the decode loop runs on the virtual GPU");
    let start = launches(&trace)[2] - 100_000;
    trace.to_svg(&SvgOptions {
        width: 1000,
        title: Some(title.into()),
        window_ns: Some((start, start + WINDOW_NS)),
    })
}

/// The naive loop: each step waits in a copy into a `Vec`.
pub(super) fn naive() -> String {
    timeline(
        Loop::Naive,
        "Naive decode loop: launch, copy into a Vec (the CPU waits), host work; a step costs GPU + CPU",
    )
}

/// The overlapped loop: step N+1 is queued before step N is processed.
pub(super) fn overlapped() -> String {
    timeline(
        Loop::Overlapped,
        "Overlapped decode loop: submit step N+1, then wait for step N's event; a step costs max(GPU, CPU)",
    )
}
