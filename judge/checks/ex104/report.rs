//! The sync report: every call of the steady-state loop that can make the
//! CPU wait for the GPU, by step.
//!
//! It reads the trace, whose entries carry the same `BlockReason` that sync
//! debug mode acts on (`Device::set_sync_debug` warns about or refuses
//! exactly these calls): one choke point decides both, so the report lists
//! what sync debug mode would flag, with each call's file and line, without
//! stopping the loop at the first one. The suite's tests snapshot the
//! report of the reference solution (`snapshots/`), which the chapter shows.

use gpu::{BlockReason, CallSite, OpKind, Trace, TraceEntry};
use judge_harness::polling::polling_loops;

/// One call that can block, in one step of the loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SyncCall {
    /// The step (from 0).
    pub(crate) step: usize,
    /// The call's name in the trace.
    pub(crate) name: String,
    /// What kind of call.
    pub(crate) op: OpKind,
    /// Why it can block.
    pub(crate) reason: BlockReason,
    /// Bytes it moved, for copies.
    pub(crate) bytes: u64,
    /// The learner's file and line.
    pub(crate) site: CallSite,
    /// For a query called again and again in one step (a CPU that polls
    /// until the GPU is done), how many times; 0 for a call that can block.
    pub(crate) polls: usize,
}

/// The blocking calls of steps `from..marks.len() - 1`, where `marks[t]` is
/// the trace mark taken just before step `t` and the last mark follows the
/// last step.
pub(crate) fn blocking_calls(trace: &Trace, marks: &[u64], from: usize) -> Vec<SyncCall> {
    let mut calls = Vec::new();
    for (step, window) in marks.windows(2).enumerate().skip(from) {
        let entries = trace.since(window[0]);
        let step_entries = || entries.iter().take_while(|e| e.seq < window[1]);
        let call = |e: &TraceEntry, reason, polls| SyncCall {
            step,
            name: e.name.clone(),
            op: e.op,
            reason,
            bytes: e.bytes,
            site: e.site,
            polls,
        };
        for e in step_entries() {
            if let Some(reason) = e.blocking {
                calls.push(call(e, reason, 0));
            }
        }
        // A query never blocks, but a line that queries again and again is
        // a wait all the same (the rule 102's suite applies too).
        for lp in polling_loops(step_entries()) {
            calls.push(call(lp.first, lp.waits_like, lp.times));
        }
    }
    calls
}

/// Whether step `t` ends a log window of `every` steps.
pub(crate) fn ends_window(step: usize, every: usize) -> bool {
    (step + 1).is_multiple_of(every)
}

/// What kind of sync a call is, in the words of the chapter, and the
/// chapter section about it.
pub(crate) fn kind(call: &SyncCall) -> (&'static str, &'static str) {
    if call.polls > 0 {
        return (
            "a CPU that polls `query()` in a loop until the GPU is done: it waits for the GPU as surely as a synchronize, and burns a core doing it (where the CPU needs the result, `Event::synchronize` waits without spinning)",
            "hidden-syncs.md#cpu-waits-and-gpu-waits",
        );
    }
    match call.reason {
        BlockReason::PageableDeviceToHost if call.bytes <= 8 => (
            "a device value read to the host every step (the `.item()` habit)",
            "hidden-syncs.md#reading-values",
        ),
        BlockReason::PageableDeviceToHost => (
            "device data read to the host (`.tolist()`, a mask to count or size the batch with)",
            "hidden-syncs.md#reading-values",
        ),
        BlockReason::PageableHostToDevice => (
            "a copy from pageable memory (use a pinned buffer and an asynchronous copy)",
            "hidden-syncs.md#pageable-copies",
        ),
        BlockReason::SegmentFree | BlockReason::PinnedFree => (
            "a raw allocation freed in the loop (`cuMemFree` waits for the device)",
            "hidden-syncs.md#allocation-and-free",
        ),
        BlockReason::DeviceSynchronize => (
            "a `Device::synchronize`, which waits for every stream",
            "hidden-syncs.md#cpu-waits-and-gpu-waits",
        ),
        BlockReason::StreamSynchronize => (
            "a CPU-side `Stream::synchronize` used to order two streams (an event and `wait_event` order them on the GPU)",
            "hidden-syncs.md#cpu-waits-and-gpu-waits",
        ),
        BlockReason::ElapsedTime => (
            "event times read in the loop (`elapsed_ms` waits for both events)",
            "hidden-syncs.md#timing-gpu-work",
        ),
        _ => (
            "a CPU wait for an event",
            "hidden-syncs.md#where-to-put-the-sync-points",
        ),
    }
}

/// The report: a heading, then one line per call site (in the order the
/// sites first block), with the steps it was called in.
pub(crate) fn render(calls: &[SyncCall], from: usize, to: usize, every: usize) -> String {
    let mut text = format!(
        "calls that can block the CPU in steps {from}..{to} (a log line every {every} steps):\n"
    );
    if calls.is_empty() {
        text.push_str("none\n");
    }
    let mut sites: Vec<(&SyncCall, Vec<usize>)> = Vec::new();
    for call in calls {
        match sites
            .iter_mut()
            .find(|(c, _)| c.site == call.site && c.name == call.name)
        {
            Some((_, steps)) => steps.push(call.step),
            None => sites.push((call, vec![call.step])),
        }
    }
    for (call, steps) in sites {
        let size = match call.polls {
            0 => format!("{} bytes", call.bytes),
            n => format!("called {n} times in a step"),
        };
        text.push_str(&format!(
            "{}: `{}` ({size}) at {}: {}\n",
            steps_text(&steps, from, to),
            call.name,
            call.site,
            kind(call).0
        ));
    }
    text
}

/// `every step`, or the steps, the first six of them and a count.
fn steps_text(steps: &[usize], from: usize, to: usize) -> String {
    if steps.len() == to - from && steps.windows(2).all(|w| w[1] == w[0] + 1) {
        return "every step".into();
    }
    let shown: Vec<String> = steps.iter().take(6).map(ToString::to_string).collect();
    let more = steps.len().saturating_sub(6);
    let noun = if steps.len() == 1 { "step" } else { "steps" };
    match more {
        0 => format!("{noun} {}", shown.join(", ")),
        n => format!("{noun} {}, … ({n} more)", shown.join(", ")),
    }
}

/// What is wrong with the report, if anything: a call between log
/// boundaries, or a boundary without exactly one wait. The first problem
/// comes with the call it is about, if there is one.
pub(crate) fn problem(
    calls: &[SyncCall],
    from: usize,
    to: usize,
    every: usize,
) -> Option<(String, Option<&SyncCall>)> {
    if let Some(call) = calls.iter().find(|c| !ends_window(c.step, every)) {
        let (what, section) = kind(call);
        return Some((
            format!(
                "step {} is not a log boundary, yet `{}` at {} can make the CPU wait: {what}; see {section}",
                call.step, call.name, call.site
            ),
            Some(call),
        ));
    }
    if let Some(call) = calls.iter().find(|c| c.polls > 0) {
        let (what, section) = kind(call);
        return Some((
            format!(
                "step {} waits for the GPU by calling `{}` at {} {} times: {what}; see {section}",
                call.step, call.name, call.site, call.polls
            ),
            Some(call),
        ));
    }
    for step in (from..to).filter(|&t| ends_window(t, every)) {
        let here: Vec<&SyncCall> = calls.iter().filter(|c| c.step == step).collect();
        match here.len() {
            1 => {}
            0 => {
                return Some((
                    format!(
                        "step {step} ends a log window but nothing waits there: the metrics cannot be known to have arrived, and nothing holds the CPU back (backpressure); see hidden-syncs.md#where-to-put-the-sync-points"
                    ),
                    None,
                ));
            }
            n => {
                let call = here[1];
                return Some((
                    format!(
                        "step {step} ends a log window with {n} waits instead of one; merge them: `{}` at {} is {}; see hidden-syncs.md#where-to-put-the-sync-points",
                        call.name,
                        call.site,
                        kind(call).0
                    ),
                    Some(call),
                ));
            }
        }
    }
    None
}
