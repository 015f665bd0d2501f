//! The same step drawn by a faster and a slower device: every time scaled
//! from the step's first call. The waits do not change; an answer that
//! changes reads a fixed number of nanoseconds somewhere.

use super::runner::{Run, Traced};
use super::verdict::{Waits, asked, chosen, detail, entry};
use super::words::{WAITS, call};
use find_the_wait::Wait;
use gpu::Trace;
use judge_harness::{Ctx, Failure};

/// How many times faster and slower the judge draws each step.
pub(crate) const SCALE: u64 = 50;

/// A step drawn at another speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Speed {
    /// Every time divided by [`SCALE`].
    Faster,
    /// Every time multiplied by [`SCALE`].
    Slower,
}

/// `trace` as a device `speed` would draw it: every time from the first
/// call's start scaled.
pub(crate) fn drawn(trace: &Trace, speed: Speed) -> Trace {
    let origin = trace.entries.first().map_or(0, |e| e.cpu_start_ns);
    let scale = |t: u64| {
        let d = t.saturating_sub(origin);
        origin
            + match speed {
                Speed::Faster => d / SCALE,
                Speed::Slower => d * SCALE,
            }
    };
    let mut drawn = trace.clone();
    for e in &mut drawn.entries {
        (e.cpu_start_ns, e.cpu_end_ns) = (scale(e.cpu_start_ns), scale(e.cpu_end_ns));
        if let Some(gpu) = &mut e.gpu {
            (gpu.start_ns, gpu.end_ns) = (scale(gpu.start_ns), scale(gpu.end_ns));
        }
    }
    drawn
}

pub(super) fn same_waits_on_a_faster_or_slower_device(ctx: &Ctx) -> Result<(), Failure> {
    let (run, said) = asked(ctx)?;
    same_at_any_speed(&run, &said, chosen())
}

/// `waits` answers each step drawn faster and slower as it answered the
/// step itself (`said`).
pub(crate) fn same_at_any_speed(
    run: &Run,
    said: &[Vec<Wait>],
    waits: Waits,
) -> Result<(), Failure> {
    for speed in [Speed::Faster, Speed::Slower] {
        for (step, mine) in run.steps.iter().zip(said) {
            let other = waits(&drawn(&step.trace, speed));
            if let Some(failure) = differs(step, mine, &other, speed) {
                return Err(failure);
            }
        }
    }
    Ok(())
}

/// The first difference between the answers for `step` (`mine`) and for
/// it drawn at `speed` (`other`), as a failure.
fn differs(step: &Traced, mine: &[Wait], other: &[Wait], speed: Speed) -> Option<Failure> {
    let dropped = mine.iter().find(|w| !other.contains(w));
    let added = other.iter().find(|w| !mine.contains(w));
    let (w, change, then) = match (dropped, added) {
        (Some(w), _) => (w, "no longer report", "which you reported"),
        (None, Some(w)) => (w, "also report", "which you did not report"),
        (None, None) => return None,
    };
    let (how, times) = match speed {
        Speed::Faster => ("faster", "divided"),
        Speed::Slower => ("slower", "multiplied"),
    };
    let what = step
        .call(w.seq)
        .map_or(format!("seq {}", w.seq), |c| call(entry(step, c.seq)));
    let drawn_step = Traced {
        trace: drawn(&step.trace, speed),
        ..step.clone()
    };
    Some(
        Failure::new(
            format!("the same waits for each step drawn {SCALE} times faster or slower"),
            format!(
                "with step {} drawn as a device {SCALE} times {how} would draw it (every time {times} by {SCALE}), you {change} {what} (`{:?}`), {then} at the device's own speed. The waits of a step do not depend on the device's speed: a fixed number of nanoseconds (a threshold, a slack) holds on one device only. Compare each call's CPU row with the GPU rows of the same trace",
                step.number, w.kind
            ),
        )
        .detail(detail(&drawn_step, w.seq, other, WAITS)),
    )
}
