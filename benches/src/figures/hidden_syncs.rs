//! The hidden-syncs chapter's timelines, drawn from the virtual GPU's trace
//! of the small serving loop in [`crate::sync_loop`]: with a scalar read
//! every step, and with one wait per window; and the same drawing for any
//! set of the loop's hidden [`Syncs`] (the chapter's live timeline).

use super::{Live, live_device};
use crate::sync_loop::{self, LoopConfig, Sync, SyncedRun, Syncs};
use gpu::{Result, SvgOptions};
use std::time::Duration;

/// The loop drawn: 16 requests, 2 ms of GPU and 0.5 ms of CPU a step, two
/// windows of four steps.
pub const CONFIG: LoopConfig = LoopConfig {
    batch: 16,
    step_time: Duration::from_millis(2),
    host_work: Duration::from_micros(500),
    window: 4,
    steps: 8,
};

/// Eight steps with a `.item()` in each: the CPU lane is hatched red where
/// it waits, and the GPU idles while the CPU does the next step's work.
pub(super) fn every_step() -> String {
    figure(Sync::EveryStep)
}

/// The same eight steps with one wait per window of four: the CPU runs
/// ahead; the GPU idles only while the CPU starts the next window.
pub(super) fn per_window() -> String {
    figure(Sync::PerWindow)
}

fn figure(sync: Sync) -> String {
    live(&Syncs::of(sync))
        .expect("the loop runs on the virtual GPU")
        .svg
}

/// Runs [`CONFIG`]'s loop with `syncs` on a fresh virtual GPU and draws it,
/// from the first step to the end of the GPU's work, with a margin.
pub fn live(syncs: &Syncs) -> Result<Live<SyncedRun>> {
    let device = live_device()?;
    let s = device.new_stream()?;
    let decoder = sync_loop::decoder(&s, &CONFIG)?;
    device.clear_trace();
    let run = sync_loop::run_with(&s, &decoder, &CONFIG, syncs)?;
    let trace = device.trace();
    let first = trace
        .since(run.marks[0])
        .first()
        .map_or(0, |e| e.cpu_start_ns);
    let last = trace
        .entries
        .iter()
        .map(|e| e.gpu.map_or(e.cpu_end_ns, |g| g.end_ns.max(e.cpu_end_ns)))
        .max()
        .unwrap_or(first);
    let margin = 200_000;
    let svg = trace.to_svg(&SvgOptions {
        width: 1000,
        title: Some(title(syncs)),
        window_ns: Some((first.saturating_sub(margin), last + margin)),
    });
    Ok(Live { svg, run, device })
}

/// The heading of the loop with `syncs`.
pub fn title(syncs: &Syncs) -> String {
    if *syncs == Syncs::of(Sync::EveryStep) {
        return "A hidden sync in every step: .item() after each decoder step".into();
    }
    if *syncs == Syncs::default() {
        return "One wait per window of four steps: the GPU idles once a window, not once a step"
            .into();
    }
    let on = [
        syncs.item,
        syncs.pageable_inputs,
        syncs.raw_scratch,
        syncs.read_done,
        syncs.cpu_ordered_copy,
        syncs.cpu_timer,
    ];
    let mut numbers: Vec<String> = (1..=6)
        .zip(on)
        .filter(|&(_, on)| on)
        .map(|(n, _)| n.to_string())
        .collect();
    let last = numbers.pop().unwrap_or_default();
    let list = match numbers.is_empty() {
        true => format!("sync {last}"),
        false => format!("syncs {} and {last}", numbers.join(", ")),
    };
    format!("The serving loop with hidden {list} of exercise 104 switched on")
}
