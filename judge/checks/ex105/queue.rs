//! Timed with events, the runs are queued back to back: the CPU waits once,
//! for the last end event, after the last run. It may wait without a call
//! that blocks, too: by polling `query` until the GPU is done. Queuing the
//! timed runs costs the CPU their own CPU work, a millisecond each; a CPU
//! that spent as long as half the runs' GPU time on top of that was waiting
//! for the GPU, and the calls it repeated in the loop say how.

use super::workload::{HOST, PLAN, RUN, measured};
use gpu::{CallSite, OpKind, TraceEntry};
use judge_harness::gaps::longest_gap;
use judge_harness::{Ctx, Failure};
use std::collections::BTreeMap;

pub(super) fn the_timed_runs_are_queued_back_to_back(ctx: &Ctx) -> Result<(), Failure> {
    let measurement = measured(ctx)?;
    let calls = &measurement.calls;
    let (Some(first), Some(last)) = (calls.get(PLAN.warmup).or(calls.first()), calls.last()) else {
        return Ok(());
    };
    let trace = measurement.trace();
    let between: Vec<_> = trace
        .since(first.0)
        .iter()
        .take_while(|e| e.seq < last.0)
        .collect();
    // The CPU-clock way waits around every run by design; with events, the
    // loop only queues.
    if !between.iter().any(|e| e.op == OpKind::EventRecord) {
        return Ok(());
    }
    let Some(wait) = between.iter().find(|e| e.blocking.is_some()) else {
        return no_wait_without_a_blocking_call(&between, calls);
    };
    let before = calls
        .iter()
        .position(|c| c.0 > wait.seq)
        .unwrap_or(calls.len());
    Err(Failure::new(
        "timed with events, every run queued back to back: no call that can make the CPU wait between the first timed run and the last",
        format!(
            "`{}` at {} can make the CPU wait inside the timed loop, before call {before} of the workload was queued (it waited {:.3} ms)",
            wait.name,
            wait.site,
            wait.cpu_ns() as f64 / 1e6
        ),
    )
    .at(wait.site)
    .detail("reading `elapsed_ms` waits for both of its events, and a synchronize waits for the stream: inside the loop either keeps the CPU from running ahead; queue every run, wait once for the last end event, then read the times; see hidden-syncs.md#timing-gpu-work"))
}

/// Passes unless the CPU spent far longer in the timed loop (`between`, the
/// calls from the first timed run to the last, `calls` the workload's)
/// than queuing the runs takes: then it names the call the loop repeated.
fn no_wait_without_a_blocking_call(
    between: &[&TraceEntry],
    calls: &[(u64, u64)],
) -> Result<(), Failure> {
    let (Some(first), Some(last)) = (between.first(), between.last()) else {
        return Ok(());
    };
    let spent_ns = last.cpu_end_ns.saturating_sub(first.cpu_start_ns);
    let runs = calls.len().saturating_sub(PLAN.warmup).max(1) as u64;
    let queuing_ns = runs * (HOST.as_nanos() as u64 + RUN.as_nanos() as u64 / 2);
    if spent_ns <= queuing_ns {
        return Ok(());
    }
    let mut repeated: BTreeMap<(String, CallSite), usize> = BTreeMap::new();
    for entry in between
        .iter()
        .filter(|e| matches!(e.op, OpKind::EventQuery | OpKind::StreamQuery))
    {
        *repeated
            .entry((entry.name.clone(), entry.site))
            .or_default() += 1;
    }
    let polled = repeated.iter().max_by_key(|(_, n)| **n);
    let at = polled.map_or(first.site, |((_, site), _)| *site);
    let how = match polled {
        Some(((name, site), n)) => format!(
            "`{name}` was called {n} times in the loop, at {site}: polling until the GPU is done is a synchronize in disguise, a wait with no call that blocks"
        ),
        None => {
            let gap = longest_gap(between.iter().copied(), first.cpu_start_ns, last.cpu_end_ns);
            match gap {
                Some(gap) => format!("no call in the loop blocks: {}", gap.describe()),
                None => "no call in the loop blocks, so the CPU waited on its own, between the calls the judge traced (a busy loop, a sleep)".to_string(),
            }
        }
    };
    Err(Failure::new(
        format!(
            "timed with events, every run queued back to back: the CPU spends about {:.0} ms queuing the {runs} timed runs (their CPU work)",
            (runs * HOST.as_nanos() as u64) as f64 / 1e6
        ),
        format!(
            "the CPU spent {:.1} ms between the first timed run and the last: it waited for the GPU inside the loop",
            spent_ns as f64 / 1e6
        ),
    )
    .at(at)
    .detail(format!(
        "{how}; after a wait the GPU sits idle while the CPU queues the next run, so the runs are not back to back; queue every run, wait once for the last end event, then read the times; see hidden-syncs.md#timing-gpu-work"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(op: OpKind, line: u32, start_ms: u64, end_ms: u64) -> TraceEntry {
        TraceEntry {
            seq: 0,
            op,
            name: "decode_step".into(),
            stream: None,
            bytes: 0,
            site: CallSite {
                file: "lib.rs",
                line,
                column: 1,
            },
            cpu_start_ns: start_ms * 1_000_000,
            cpu_end_ns: end_ms * 1_000_000,
            blocking: None,
            gpu: None,
            captured: false,
        }
    }

    #[test]
    fn a_loop_that_spins_between_its_calls_is_told_where() {
        // Two runs queued at once, then 200 ms with no call, then the rest.
        let runs = [
            entry(OpKind::Launch, 40, 0, 1),
            entry(OpKind::Launch, 40, 1, 2),
            entry(OpKind::Launch, 44, 202, 203),
        ];
        let between: Vec<&TraceEntry> = runs.iter().collect();
        let calls = vec![(0, 0); PLAN.warmup + PLAN.reps];
        let failure = no_wait_without_a_blocking_call(&between, &calls).expect_err("a wait");
        let why = failure.detail.expect("a diagnosis");
        assert!(
            why.starts_with("no call in the loop blocks: the CPU spent 200.000 ms between `decode_step` at lib.rs:40:1 and `decode_step` at lib.rs:44:1 outside any GPU call"),
            "{why}"
        );
    }
}
