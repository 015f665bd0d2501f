//! The step times: one per step, each the GPU time of that step, which
//! only events can give once the CPU runs ahead. A wrong set of times is
//! named by its shape: the CPU's time to queue, the spin ahead counted in,
//! or a running total.

use super::support::{GATE, GPU_STEP, Run, STEPS, run};
use gpu::OpKind;
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str = "16 step times, each the GPU time of its step (the decoder's 1 ms and a few microseconds of copy and flags), from events read after the run";

pub(super) fn step_times_are_the_gpu_s(ctx: &Ctx) -> Result<(), Failure> {
    times_right(&run(ctx)?)
}

/// The GPU time of step `t` from the trace: from its first event, copy or
/// kernel to its last, idle time between them included (what a pair of
/// events around the step measures), or the decoder's step time when the
/// trace has no GPU times.
fn gpu_ms(run: &Run, t: usize) -> f64 {
    let spans: Vec<_> = run.steps[t]
        .iter()
        .filter(|e| {
            matches!(
                e.op,
                OpKind::EventRecord
                    | OpKind::Launch
                    | OpKind::CopyHostToDevice
                    | OpKind::CopyDeviceToDevice
            )
        })
        .filter_map(|e| e.gpu)
        .collect();
    match (
        spans.iter().map(|g| g.start_ns).min(),
        spans.iter().map(|g| g.end_ns).max(),
    ) {
        (Some(start), Some(end)) => (end - start) as f64 / 1e6,
        _ => GPU_STEP.as_secs_f64() * 1e3,
    }
}

/// The check on one run's report and trace.
pub(super) fn times_right(run: &Run) -> Result<(), Failure> {
    let got = &run.report.step_ms;
    if got.len() != STEPS {
        return Err(Failure::new(
            EXPECTED,
            format!(
                "{} step times for {STEPS} steps: one per step, from a pair of events recorded in the step and read in `finish`",
                got.len()
            ),
        ));
    }
    let want: Vec<f64> = (0..STEPS).map(|t| gpu_ms(run, t)).collect();
    let right = |t: usize| got[t] >= want[t] * 0.9 && got[t] <= want[t] * 1.1 + 0.05;
    let Some(t) = (0..STEPS).find(|&t| !right(t)) else {
        return Ok(());
    };
    let step = GPU_STEP.as_secs_f64() * 1e3;
    let elapsed = run
        .steps
        .iter()
        .flatten()
        .chain(&run.finish)
        .any(|e| e.op == OpKind::EventElapsed);
    let actual = if got.iter().all(|&ms| ms < step / 10.0) && !elapsed {
        format!(
            "step {t} reports {:.3} ms, and every step under {:.1} ms, with no `elapsed_ms` in the run: the CPU's time to queue a step, not the GPU's time to run it. A CPU clock around calls that only queue sees the submission; record an event before and after the step's work on its stream, and read `elapsed_ms` in `finish`",
            got[t],
            step / 10.0
        )
    } else if got.iter().all(|&ms| ms < step / 10.0) {
        format!(
            "step {t} reports {:.3} ms, and every step under {:.1} ms, where the GPU ran it in {:.3} ms: the two events leave the decoder out. Record the start event before the step's first work on the stream and the end event after its last",
            got[t],
            step / 10.0,
            want[t]
        )
    } else if t == 0 && got[0] >= GATE.as_secs_f64() * 1e3 / 2.0 {
        format!(
            "step 0 reports {:.1} ms where the GPU ran it in {:.3} ms: the {:.0} ms spin queued ahead of the first step is counted in, so its first event was recorded before the step began (in `new`?). Record each step's start event in the step",
            got[0],
            want[0],
            GATE.as_secs_f64() * 1e3
        )
    } else if (1..STEPS).all(|k| got[k] > got[k - 1] + step / 2.0) {
        format!(
            "step {t} reports {:.3} ms, and each step more than the one before ({:.3} ms at the last): a running total from one start event, not each step's own time. Measure each step between its own two events",
            got[t],
            got[STEPS - 1]
        )
    } else {
        format!(
            "step {t} reports {:.3} ms where the GPU ran it in {:.3} ms: measure each step between an event recorded on its stream before its first work and one after its last",
            got[t], want[t]
        )
    };
    Err(Failure::new(EXPECTED, actual))
}
