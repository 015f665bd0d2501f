//! Runs shorter than `max_steps`: none at all, and one that ends inside a
//! log window, after the CPU sat idle before its first step. The report
//! holds what ran: a log line per complete window, outputs from the steps
//! that ran, one step time per step, the first one the GPU's time of that
//! step alone.

use super::outputs::log_difference;
use super::support::Bench;
use super::workload::{LOG_EVERY, STEP_TIME, expected};
use judge_harness::bridge::unless_it_panics;
use judge_harness::{Ctx, Failure};
use std::time::Duration;

/// Where the rules are.
const SECTION: &str = "see hidden-syncs.md#where-to-put-the-sync-points";

/// Steps of the short run: a window and a half.
const SHORT: usize = LOG_EVERY + LOG_EVERY / 2 + 1;

/// How long the CPU works between `Server::new` and the first step.
const IDLE: Duration = Duration::from_millis(20);

pub(super) fn shorter_runs_are_reported_as_they_ran(ctx: &Ctx) -> Result<(), Failure> {
    let bench = Bench::open(ctx)?;
    let asked = "`finish` right after `Server::new`: an output per request, each empty, no log line, no step time";
    let none = unless_it_panics(|| bench.run(0, |_| Ok(()))).map_err(|panic| {
        Failure::new(asked, format!("`finish` panicked: {panic}"))
        .detail(format!(
            "a run may have no step (a server asked to stop before its first batch): then there is no step event to wait for and no history row to read, and `finish` reports what ran, nothing; wait for the stream, or for a step event only if one was recorded; {SECTION}"
        ))
    })??;
    let empty = none.outputs.iter().all(Vec::is_empty)
        && none.outputs.len() == bench.workload.config().batch;
    if !empty || !none.logs.is_empty() || !none.step_ms.is_empty() {
        return Err(Failure::new(
            asked,
            format!(
                "{} outputs ({} not empty), {} log lines, {} step times",
                none.outputs.len(),
                none.outputs.iter().filter(|o| !o.is_empty()).count(),
                none.logs.len(),
                none.step_ms.len()
            ),
        )
        .detail(format!(
            "a run may have no step: `finish` reports what ran, nothing here{}; {SECTION}",
            match none.outputs.iter().flatten().all(|&t| t == 0) && !empty {
                true => ": these outputs are zeros, built from history rows no step wrote (the whole `max_steps`); read and use only the rows of the steps that ran",
                false => "",
            }
        )));
    }
    short(&bench)
}

/// A run of [`SHORT`] steps, the CPU busy for [`IDLE`] before the first.
fn short(bench: &Bench) -> Result<(), Failure> {
    let device = &bench.device;
    let report = bench.run(SHORT, |t| {
        if t == 0 {
            device.host_work(IDLE);
        }
        Ok(())
    })?;
    let (outputs, logs) = expected(
        &bench.decoder,
        &bench.workload.inputs[..SHORT],
        bench.workload.eos,
    );
    let asked = format!(
        "a run of {SHORT} steps of a `max_steps` of {}",
        bench.workload.config().max_steps
    );
    if report.logs != logs {
        // Lines at the right steps with the wrong figures: what the figures
        // say, as the full run's check reads them; else the windows' rule.
        let same_windows = report
            .logs
            .iter()
            .map(|l| l.step)
            .eq(logs.iter().map(|l| l.step));
        let why = match same_windows {
            true => log_difference(&logs, &report.logs, &bench.device.trace().entries),
            false => format!(
                "a log line closes a complete window (after steps K - 1, 2K - 1, …); the {} steps after the last one make no line, in `step` or in `finish`",
                SHORT % LOG_EVERY
            ),
        };
        return Err(Failure::new(
            format!(
                "{asked}: {} log line(s), one per complete window of {LOG_EVERY} steps: {logs:?}",
                logs.len()
            ),
            format!("{:?}", report.logs),
        )
        .detail(format!("{why}; {SECTION}")));
    }
    if let Some(r) = (0..outputs.len()).find(|&r| report.outputs.get(r) != Some(&outputs[r])) {
        let got = report.outputs.get(r).cloned().unwrap_or_default();
        let why = match got.len() > outputs[r].len() && got.starts_with(&outputs[r]) {
            true => format!(
                "it has {} tokens where {SHORT} steps ran: it was built from history rows no step wrote (the whole `max_steps`); read and use only the rows of the steps that ran",
                got.len()
            ),
            false => "a request's output is its predictions of the steps that ran, up to and including its first `eos`".into(),
        };
        return Err(Failure::new(
            format!("{asked}: request {r}'s output {:?}", outputs[r]),
            format!("{got:?}"),
        )
        .detail(format!("{why}; {SECTION}")));
    }
    let step = STEP_TIME.as_secs_f64() * 1e3;
    let first = report.step_ms.first().copied().unwrap_or(0.0);
    if report.step_ms.len() != SHORT || first > step + IDLE.as_secs_f64() * 1e3 / 2.0 {
        return Err(Failure::new(
            format!("{asked}, the CPU busy for {} ms before the first: {SHORT} step times, the first about the GPU's {step:.1} ms", IDLE.as_millis()),
            format!("{} step times, the first {first:.3} ms", report.step_ms.len()),
        )
        .detail(format!(
            "the first step's time holds the {} ms the GPU sat idle before it: its start event was recorded when the server was made, not when the first step began; record it at the first step (or time each step from an event recorded just before it); {SECTION}",
            IDLE.as_millis()
        )));
    }
    Ok(())
}
