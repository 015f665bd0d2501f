//! The sampling chapter's timelines: the naive decode loop and the
//! overlapped one (exercise 102's solution) on the virtual GPU, the same
//! workload (2 ms of GPU and 1.5 ms of CPU a step), the same 12 ms window
//! from the third step on; and the same drawing for any GPU and CPU time per
//! step (the chapter's live timeline), the window scaled with the step.

use super::{Live, live_device};
use crate::sampling::{Loop, launches, run};
use gpu::{Result, SvgOptions, Trace};
use std::time::Duration;

/// The figures' step: 2 ms of GPU and 1.5 ms of CPU.
pub const STEP: (Duration, Duration) = (Duration::from_millis(2), Duration::from_micros(1500));

/// Steps decoded.
const TOKENS: usize = 12;

/// Runs `which` loop with `gpu` and `cpu` time per step on a fresh virtual
/// GPU and draws it from just before the third step's launch, for 24/7 of a
/// naive step (12 ms at the figures' step).
pub fn live(which: Loop, gpu: Duration, cpu: Duration) -> Result<Live<Trace>> {
    let device = live_device()?;
    let trace = run(&device, which, gpu, cpu, TOKENS)?;
    let start = launches(&trace)[2] - 100_000;
    let window = (gpu + cpu).as_nanos() as u64 * 24 / 7;
    let title = match which {
        Loop::Naive => {
            "Naive decode loop: launch, copy into a Vec (the CPU waits), host work; a step costs GPU + CPU"
        }
        Loop::Overlapped => {
            "Overlapped decode loop: submit step N+1, then wait for step N's event; a step costs max(GPU, CPU)"
        }
    };
    let svg = trace.to_svg(&SvgOptions {
        width: 1000,
        title: Some(title.into()),
        window_ns: Some((start, start + window)),
    });
    Ok(Live {
        svg,
        run: trace,
        device,
    })
}

fn figure(which: Loop) -> String {
    live(which, STEP.0, STEP.1)
        .expect("the decode loop runs on the virtual GPU")
        .svg
}

/// The naive loop: each step waits in a copy into a `Vec`.
pub(super) fn naive() -> String {
    figure(Loop::Naive)
}

/// The overlapped loop: step N+1 is queued before step N is processed.
pub(super) fn overlapped() -> String {
    figure(Loop::Overlapped)
}
