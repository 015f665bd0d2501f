//! The hidden-syncs chapter's timelines, drawn from the virtual GPU's trace
//! of the small serving loop in [`crate::sync_loop`]: with a scalar read
//! every step, and with one wait per window.

use crate::sync_loop::{self, LoopConfig, Sync};
use gpu::{Backend, Device, DeviceOptions, OpKind, SvgOptions};
use std::time::Duration;

/// Eight steps with a `.item()` in each: the CPU lane is hatched red where
/// it waits, and the GPU idles while the CPU does the next step's work.
pub(super) fn every_step() -> String {
    timeline(
        Sync::EveryStep,
        "A hidden sync in every step: .item() after each decoder step",
    )
}

/// The same eight steps with one wait per window of four: the CPU runs
/// ahead; the GPU idles only while the CPU starts the next window.
pub(super) fn per_window() -> String {
    timeline(
        Sync::PerWindow,
        "One wait per window of four steps: the GPU idles once a window, not once a step",
    )
}

fn timeline(sync: Sync, title: &str) -> String {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })
    .expect("the virtual GPU always opens");
    let config = LoopConfig {
        batch: 16,
        step_time: Duration::from_millis(2),
        host_work: Duration::from_micros(500),
        window: 4,
        steps: 8,
    };
    let s = device.new_stream().expect("a stream");
    let decoder = sync_loop::decoder(&s, &config).expect("the decoder uploads");
    device.clear_trace();
    sync_loop::run(&s, &decoder, &config, sync).expect("the loop runs");
    let trace = device.trace();
    let first = trace
        .entries
        .iter()
        .find(|e| e.op == OpKind::HostWork)
        .map_or(0, |e| e.cpu_start_ns);
    let last = trace
        .entries
        .iter()
        .map(|e| e.gpu.map_or(e.cpu_end_ns, |g| g.end_ns.max(e.cpu_end_ns)))
        .max()
        .unwrap_or(first);
    let margin = 200_000;
    trace.to_svg(&SvgOptions {
        width: 1000,
        title: Some(title.to_string()),
        window_ns: Some((first.saturating_sub(margin), last + margin)),
    })
}
