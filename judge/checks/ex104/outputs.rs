//! The outputs and the log lines against the reference, and no race.

use super::support::Bench;
use super::workload::STEPS;
use gpu::{Actor, OpKind, RaceKind, RaceReport, TraceEntry};
use judge_harness::ordering::missed_order;
use judge_harness::{Ctx, Failure};
use sync_elimination::LogLine;

/// What a log line holds, and when.
const RULE: &str = "a log line after steps K-1, 2K-1, …: the tokens generated in its window (one per request not finished before the step) and the requests finished after it; see hidden-syncs.md#why-a-sync-exists";

/// The first log line that differs, field by field and by how much, with
/// the cause the difference points to when it points to one.
/// `entries` is the run's trace, which tells why every line reads zero
/// when they all do ([`all_zero`]).
pub(super) fn log_difference(want: &[LogLine], got: &[LogLine], entries: &[TraceEntry]) -> String {
    let Some(i) = (0..want.len().max(got.len())).find(|&i| want.get(i) != got.get(i)) else {
        return "the same log lines".into();
    };
    if let Some(cause) = all_zero(want, got, copy_after_a_reset(entries)) {
        return cause;
    }
    let (Some(w), Some(g)) = (want.get(i), got.get(i)) else {
        return format!(
            "{} log lines where {} windows ended: one line at the last step of each window",
            got.len(),
            want.len()
        );
    };
    if g.step != w.step {
        return format!(
            "log line {i} comes after step {}, not {}: a window's line comes after its last step, once that step's metrics have arrived",
            g.step, w.step
        );
    }
    let mut parts = Vec::new();
    if g.tokens != w.tokens {
        let since_start: u32 = want[..=i].iter().map(|l| l.tokens).sum();
        let finishers = w.finished - i.checked_sub(1).map_or(0, |p| want[p].finished);
        let cause = if g.tokens == since_start && i > 0 {
            ": the tokens since the start, not since the last line (the counter was not reset after the line)".to_string()
        } else if finishers > 0 && g.tokens + finishers == w.tokens {
            format!(
                ": short by exactly the {finishers} requests that finished in this window: the step in which a request finishes generates its last token too, but the tokens were counted after the step had marked it finished; count a step's tokens (`count_eq` on the done mask) before `flag_eq` updates the mask"
            )
        } else {
            String::new()
        };
        parts.push(format!(
            "tokens {} where the window generated {} ({:+}){cause}",
            g.tokens,
            w.tokens,
            i64::from(g.tokens) - i64::from(w.tokens)
        ));
    }
    if g.finished != w.finished {
        let summed: u32 = want[..=i].iter().map(|l| l.finished).sum();
        let cause = if g.finished == summed && i > 0 {
            ": the sum of this line's figure and every earlier line's, so the count kept what the earlier windows had counted: it was not reset after each line as the tokens were"
        } else if g.finished > w.finished && g.tokens == w.tokens {
            ": requests counted as finished more than once (a finished request is counted each step it is seen, not once)"
        } else {
            ""
        };
        parts.push(format!(
            "finished {} where {} requests had finished ({:+}){cause}",
            g.finished,
            w.finished,
            i64::from(g.finished) - i64::from(w.finished)
        ));
    }
    format!("log line {i} (after step {}): {}", w.step, parts.join("; "))
}

/// Why every log line reads zero when the windows generated tokens. `None`
/// unless every line is zero and some window generated tokens; then the
/// cause the trace shows: a copy out queued right behind a `fill` on its
/// stream (`reset_before`, the copy's entry), or counters that no copy
/// filled.
fn all_zero(
    want: &[LogLine],
    got: &[LogLine],
    reset_before: Option<&TraceEntry>,
) -> Option<String> {
    let zero = |l: &LogLine| l.tokens == 0 && l.finished == 0;
    if got.is_empty() || !got.iter().all(zero) || want.iter().all(zero) {
        return None;
    }
    let generated = want.iter().map(|l| l.tokens).sum::<u32>();
    let lines = match got.len() {
        1 => format!(
            "the log line reads 0 tokens and 0 finished, though its window generated {generated} tokens"
        ),
        n => format!(
            "all {n} log lines read 0 tokens and 0 finished, though the windows generated {generated} tokens"
        ),
    };
    Some(match reset_before {
        Some(copy) => format!(
            "{lines}: the copy to the CPU at {} is queued right after a `fill` on its stream, so the counters were reset before they were copied out; at a window's last step, queue the copy first, then the reset",
            copy.site
        ),
        None => format!(
            "{lines}: no copy filled the counters the CPU read; at a window's last step, copy the counters to pinned memory (`copy_to_pinned`), then reset them, and read them once that copy's event has completed"
        ),
    })
}

/// The first copy from the device to the host that its stream queued right
/// after a `fill` kernel: a reset copied out instead of what it reset.
fn copy_after_a_reset(entries: &[TraceEntry]) -> Option<&TraceEntry> {
    entries.iter().enumerate().find_map(|(i, e)| {
        let copy = e.op == OpKind::CopyDeviceToHost && e.stream.is_some();
        let before = entries[..i].iter().rev().find(|p| p.stream == e.stream);
        let reset = before.is_some_and(|p| p.op == OpKind::Launch && p.name.starts_with("fill"));
        (copy && reset).then_some(e)
    })
}

/// What the first race means here, from who touched the memory how.
fn race_cause(race: &RaceReport) -> &'static str {
    let (now, then) = (&race.current, &race.previous);
    match (race.kind, now.actor, now.write, then.write) {
        (RaceKind::UnorderedFree | RaceKind::ReuseAfterFree, ..) => {
            "a buffer was freed or reused while another stream's use of it was not ordered before"
        }
        (_, Actor::Cpu, true, _) => {
            "the CPU refilled a pinned buffer that a copy queued on the GPU may still read: a ring needs a buffer for every copy still in flight"
        }
        (_, Actor::Cpu, false, _) => {
            "the CPU read a pinned buffer before the copy into it was known to be done"
        }
        (_, _, false, true) => "a stream read data another stream had not finished writing",
        (_, _, true, false) => "a stream overwrote data another stream may still be reading",
        _ => "two streams wrote the same memory with nothing ordering them",
    }
}

pub(super) fn outputs_and_logs_match_the_reference(ctx: &Ctx) -> Result<(), Failure> {
    let bench = Bench::open(ctx)?;
    let report = bench.run(STEPS, |_| Ok(()))?;
    ctx.save_trace("outputs", &bench.device);
    let races = bench.device.races();
    if let Some(race) = races.first() {
        let missed = missed_order(&bench.device.trace().entries, race)
            .map(|why| format!(": {why}"))
            .unwrap_or_default();
        return Err(Failure::new(
            "no data race between the CPU, the copy stream and the compute stream",
            format!(
                "{} race(s); the first: {}{missed}",
                races.len(),
                race_cause(race)
            ),
        )
        .at(race.current.site)
        .detail(format!("{race}\nsee hidden-syncs.md#why-a-sync-exists")));
    }
    let expected = &bench.workload;
    if let Some(r) =
        (0..expected.outputs.len()).find(|&r| report.outputs.get(r) != Some(&expected.outputs[r]))
    {
        return Err(Failure::new(
            format!("request {r}'s output {:?}", expected.outputs[r]),
            format!("{:?}", report.outputs.get(r)),
        )
        .detail("an output holds a request's predictions up to its first `eos`; a finished request must not change, and an unfinished one must get every step's prediction"));
    }
    if report.logs != expected.logs {
        return Err(Failure::new(
            format!("the log lines {:?}", expected.logs),
            log_difference(&expected.logs, &report.logs, &bench.device.trace().entries),
        )
        .detail(format!("your log lines: {:?}\n{RULE}", report.logs)));
    }
    if report.step_ms.len() != STEPS {
        return Err(Failure::new(
            format!("{STEPS} step times, one per step"),
            format!("{} step times", report.step_ms.len()),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(step: usize, tokens: u32, finished: u32) -> LogLine {
        LogLine {
            step,
            tokens,
            finished,
        }
    }

    #[test]
    fn lines_that_all_read_zero_are_told_by_the_reset_or_the_missing_copy() {
        let want = [line(7, 64, 2), line(15, 60, 5)];
        let got = [line(7, 0, 0), line(15, 0, 0)];
        let none = log_difference(&want, &got, &[]);
        assert!(none.contains("no copy filled the counters"), "{none}");
        assert!(none.contains("all 2 log lines read 0 tokens"), "{none}");
        assert!(none.contains("generated 124 tokens"), "{none}");
        let one = log_difference(&want[..1], &got[..1], &[]);
        assert!(one.starts_with("the log line reads 0 tokens"), "{one}");
        let one_zero = [line(7, 0, 0), line(15, 60, 5)];
        let partly = log_difference(&want, &one_zero, &[]);
        assert!(!partly.contains("all 2 log lines"), "{partly}");
        let idle = [line(7, 0, 0), line(15, 0, 0)];
        assert_eq!(all_zero(&idle, &got, None), None);
        assert_eq!(all_zero(&want, &[], None), None);
    }
}
