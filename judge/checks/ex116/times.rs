//! The step times: one per step, each the GPU time of that step, which
//! only events can give once the CPU runs ahead. A wrong set of times is
//! named by its shape: the CPU's time to queue, the spin ahead counted in,
//! or a running total. And the events they come from enclose each step's
//! work: an event before its first work on the stream and one after its
//! last, read from the trace (a few microseconds of flags left out is
//! inside any tolerance on the times, not in the order of the calls).

use super::support::{GATE, GPU_STEP, Run, STEPS, describe, run};
use gpu::{OpKind, TraceEntry};
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
    let negative =
        (0..STEPS).all(|t| got[t] < 0.0 && (-got[t] - want[t]).abs() <= want[t] * 0.1 + 0.05);
    let actual = if negative {
        format!(
            "step {t} reports {:.3} ms, minus the {:.3} ms the GPU ran it, and so does every step: each time was read from the end event to the start event. `a.elapsed_ms(&b)` is the time from `a` to `b`: read `start.elapsed_ms(&end)`",
            got[t], want[t]
        )
    } else if got.iter().all(|&ms| ms < step / 10.0) && !elapsed {
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

/// What [`the_events_enclose_each_step`] expects, in words.
const ENCLOSED: &str = "in every step, an event recorded on the stream before the step's first work and one after its last (the copy in, `decode_step` and `flag_eq`), so that the step's time covers all of it";

/// GPU work queued on a stream: what a step's time must cover.
fn is_work(e: &TraceEntry) -> bool {
    e.stream.is_some()
        && matches!(
            e.op,
            OpKind::Launch
                | OpKind::CopyHostToDevice
                | OpKind::CopyDeviceToDevice
                | OpKind::CopyDeviceToHost
                | OpKind::Memset
        )
}

pub(super) fn the_events_enclose_each_step(ctx: &Ctx) -> Result<(), Failure> {
    events_enclose(&run(ctx)?)
}

/// The check on one run's trace: the events a step's time can come from
/// lie around all of its work on the stream. A step's start may be the
/// previous step's end event, when nothing was queued after it.
pub(super) fn events_enclose(run: &Run) -> Result<(), Failure> {
    let record_on = |e: &TraceEntry, stream| e.op == OpKind::EventRecord && e.stream == stream;
    for (t, step) in run.steps.iter().enumerate() {
        let work: Vec<&TraceEntry> = step.iter().filter(|e| is_work(e)).collect();
        let (Some(first), Some(last)) = (work.first(), work.last()) else {
            continue;
        };
        let records: Vec<&TraceEntry> = step.iter().filter(|e| record_on(e, last.stream)).collect();
        if !records.iter().any(|r| r.seq > last.seq) {
            let before = records.iter().rev().find(|r| r.seq < last.seq);
            let after = work.iter().filter(|w| before.is_none_or(|r| w.seq > r.seq));
            let left_out: Vec<String> = after.map(|w| format!("`{}`", w.name)).collect();
            let actual = match before {
                Some(end) => format!(
                    "in step {t}, {} was queued after the step's last event, recorded at {}: the step's time ends before {}, which no step's time then measures. Record the step's end event after its last work on the stream (after `flag_eq`)",
                    describe(last),
                    end.site,
                    left_out.join(", ")
                ),
                None => format!(
                    "in step {t}, no event was recorded on the stream after {}, the step's last work: a step's time runs between an event recorded before its first work and one after its last",
                    describe(last)
                ),
            };
            return Err(Failure::new(ENCLOSED, actual).at(last.site));
        }
        let ended_before = t
            .checked_sub(1)
            .and_then(|p| {
                run.steps[p]
                    .iter()
                    .rfind(|e| is_work(e) || e.op == OpKind::EventRecord)
            })
            .is_some_and(|e| record_on(e, first.stream));
        if !ended_before
            && !step
                .iter()
                .any(|e| record_on(e, first.stream) && e.seq < first.seq)
        {
            return Err(Failure::new(
                ENCLOSED,
                format!(
                    "in step {t}, {} was queued before the step's first event: the step's time begins after it, so it is measured by no step. Record the step's start event before its first work on the stream (before the copy in)",
                    describe(first)
                ),
            )
            .at(first.site));
        }
    }
    Ok(())
}
