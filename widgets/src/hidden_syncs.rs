//! The hidden-syncs chapter's widget: the serving loop with each of exercise
//! 104's six hidden syncs switched on or off
//! ([`workbook_benches::sync_loop::run_with`]), with its sync report.

use crate::controls::{Spec, Values, flag};
use crate::view::{Error, View, percent, time};
use gpu::{BlockReason, CallSite, Trace};
use workbook_benches::figures::hidden_syncs::{CONFIG, live};
use workbook_benches::sync_loop::Syncs;

/// The six switches, as `(name, label)`; all off draws the per-window figure.
const SWITCHES: [(&str, &str); 6] = [
    ("item", "1. .item() every step"),
    ("pageable_inputs", "2. inputs sent from a Vec"),
    ("raw_scratch", "3. a raw segment allocated and freed"),
    ("read_done", "4. done flags read to size the batch"),
    (
        "cpu_ordered_copy",
        "5. a copy stream ordered by synchronize",
    ),
    ("cpu_timer", "6. the step timed with a CPU timer"),
];

/// One flag per hidden sync, all off.
pub(crate) fn spec() -> Spec {
    Spec {
        figure: "hidden-syncs-per-window.svg",
        controls: SWITCHES
            .iter()
            .map(|&(name, label)| flag(name, label, false))
            .collect(),
    }
}

/// The syncs the values switch on.
fn syncs(values: &Values) -> Syncs {
    let on = |name: &str| values.flag(name);
    Syncs {
        item: on("item"),
        pageable_inputs: on("pageable_inputs"),
        raw_scratch: on("raw_scratch"),
        read_done: on("read_done"),
        cpu_ordered_copy: on("cpu_ordered_copy"),
        cpu_timer: on("cpu_timer"),
    }
}

/// Runs the loop: its step time by events and as the loop reports it, and
/// the sync report of its second window.
pub(crate) fn render(values: &Values) -> Result<View, Error> {
    let syncs = syncs(values);
    let drawn = live(&syncs)?;
    let times = drawn.run.times;
    let (reported, how) = match syncs.cpu_timer {
        true => (drawn.run.cpu_timer_ms, "CPU timer, median"),
        false => (times.step_ms, "events"),
    };
    let ms = |ms: f64| time(ms * 1e6);
    let trace = drawn.device.trace();
    let calls = blocking_calls(&trace, &drawn.run.marks, CONFIG.window);
    Ok(View::new(drawn.svg)
        .number("step time (events)", ms(times.step_ms))
        .number("the decoder alone: the limit", ms(times.limit_ms))
        .number(
            "over the limit",
            percent(times.step_ms - times.limit_ms, times.limit_ms),
        )
        .number(&format!("step time the loop reports ({how})"), ms(reported))
        .number(
            "calls that can block, steady state",
            calls.len().to_string(),
        )
        .report(report(&calls)))
}

/// One call that can block, in one step.
struct Call {
    step: usize,
    name: String,
    bytes: u64,
    site: CallSite,
    reason: BlockReason,
}

/// The calls that can block in steps `from..` (`marks[t]` is the trace mark
/// before step `t`; the last mark follows the last step).
fn blocking_calls(trace: &Trace, marks: &[u64], from: usize) -> Vec<Call> {
    let mut calls = Vec::new();
    for (step, window) in marks.windows(2).enumerate().skip(from) {
        let entries = trace
            .since(window[0])
            .iter()
            .take_while(|e| e.seq < window[1]);
        for e in entries {
            if let Some(reason) = e.blocking {
                calls.push(Call {
                    step,
                    name: e.name.clone(),
                    bytes: e.bytes,
                    site: e.site,
                    reason,
                });
            }
        }
    }
    calls
}

/// The sync report: one line per call site, with the steps it was called in.
fn report(calls: &[Call]) -> String {
    let (from, to, every) = (CONFIG.window, CONFIG.steps, CONFIG.window);
    let mut text = format!(
        "calls that can block the CPU in steps {from}..{to} (one wait per window of {every} steps is the one the loop needs):\n"
    );
    let mut sites: Vec<(&Call, Vec<String>)> = Vec::new();
    for call in calls {
        match sites.iter_mut().find(|(c, _)| c.site == call.site) {
            Some((_, steps)) => steps.push(call.step.to_string()),
            None => sites.push((call, vec![call.step.to_string()])),
        }
    }
    for (call, steps) in sites {
        let steps = match steps.len() == to - from {
            true => "every step".to_string(),
            false => format!("step {}", steps.join(", ")),
        };
        text += &format!(
            "{steps}: `{}` ({} bytes) at {}: {}\n",
            call.name,
            call.bytes,
            call.site,
            call.reason.explain()
        );
    }
    text
}
