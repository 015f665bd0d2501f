//! The profiling chapter's timeline: one decode step of
//! [`crate::profile_step`] on the virtual GPU, its ranges in lanes above
//! the CPU's, from the step's open to the end of its read.

use super::{Live, live_device};
use crate::profile_step::{StepShape, chapter_step, profile};
use gpu::{Result, SvgOptions, Trace};

/// The chapter's step, the last of two profiled after a warm-up.
pub(super) fn step() -> String {
    live(&chapter_step())
        .expect("the step runs on the virtual GPU")
        .svg
}

/// Profiles `shape`'s step on a fresh device and draws its last step.
pub fn live(shape: &StepShape) -> Result<Live<Trace>> {
    let device = live_device()?;
    let trace = profile(&device, shape, 1, 2)?;
    let step = trace.ranges.iter().rev().find(|r| r.name == "step");
    let window = step.map(|s| (s.cpu_start_ns.saturating_sub(5_000), s.cpu_end_ns + 5_000));
    let svg = trace.to_svg(&SvgOptions {
        width: 1000,
        title: Some(
            "One decode step, profiled: ranges above the CPU, the kernels on the stream".into(),
        ),
        window_ns: window,
    });
    Ok(Live {
        svg,
        run: trace,
        device,
    })
}
