//! The ranges and their calls in words: times in exact microseconds, a
//! range named by its path, a call by what the judge made, and the two
//! listings a failure shows: the step's summary table, the truth against
//! the learner's rows, and the calls of the range it is about.

use super::runner::Traced;
use super::scenes::Action;
use attribute_ranges::RangeTime;
use gpu::TraceEntry;
use std::fmt::Write as _;

/// The section on ranges.
pub(crate) const RANGES: &str = "profiling.md#ranges-naming-the-parts-of-a-step";
/// The section on attributing time to ranges.
pub(crate) const ATTRIBUTING: &str = "profiling.md#attributing-time-to-ranges";
/// The section on running the judge.
pub(crate) const RUNNING: &str = "profiling.md#running-the-judge";

/// A duration of `ns`, in microseconds to the nanosecond.
pub(crate) fn us(ns: u64) -> String {
    format!("{}.{:03} µs", ns / 1000, ns % 1000)
}

/// A value that may be below zero, in microseconds.
pub(crate) fn signed(ns: i128) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    format!("{sign}{}", us(ns.unsigned_abs() as u64))
}

/// `ns` of the trace's clock as microseconds from the step's first call.
pub(crate) fn at(step: &Traced, ns: u64) -> String {
    let origin = step.trace.entries.first().map_or(0, |e| e.cpu_start_ns);
    us(ns.saturating_sub(origin))
}

/// Range `i` of `step` by its path, in backticks, and its row.
pub(crate) fn range(step: &Traced, i: usize) -> String {
    let mut names = vec![step.nodes[i].name.as_str()];
    let mut at = step.nodes[i].parent;
    while let Some(p) = at {
        names.push(&step.nodes[p].name);
        at = step.nodes[p].parent;
    }
    names.reverse();
    format!("`{}` (row {i})", names.join(" > "))
}

/// What the judge's call is, in words.
fn action(a: Action) -> String {
    match a {
        Action::Kernel { label, .. } => format!("the `{label}` kernel"),
        Action::Upload { .. } => "the upload of the tokens from pinned memory".into(),
        Action::DeviceCopy { .. } => "the device copy of the kv cache".into(),
        Action::PinnedDownload { .. } => {
            "the download of the sampled tokens into pinned memory".into()
        }
        Action::ToVec { .. } => "the read of the tokens (`to_vec`)".into(),
        Action::HostWork { label, .. } => format!("host work (`{label}`)"),
        Action::Fork => "the side stream's wait for the main one".into(),
    }
}

/// The judge's call that made the entry `seq` of `step`.
fn made(step: &Traced, seq: u64) -> Option<Action> {
    step.nodes
        .iter()
        .flat_map(|n| &n.own)
        .find(|m| m.seqs.contains(&seq))
        .map(|m| m.action)
}

/// The entry's name, with the judge's label for a kernel or host work.
fn short(step: &Traced, e: &TraceEntry) -> String {
    match made(step, e.seq) {
        Some(Action::Kernel { label, .. } | Action::HostWork { label, .. }) => {
            format!("{} ({label})", e.name)
        }
        _ => e.name.clone(),
    }
}

/// The call of `seq` in `step`, in words: its seq, what it is, its stream.
pub(crate) fn call(step: &Traced, e: &TraceEntry) -> String {
    let what = made(step, e.seq).map_or(format!("`{}`", e.name), action);
    match e.stream {
        Some(s) => format!("seq {}, {what} on stream {s}", e.seq),
        None => format!("seq {}, {what}", e.seq),
    }
}

/// When the GPU ran `e`'s work, in words.
pub(crate) fn ran(step: &Traced, e: &TraceEntry) -> String {
    e.gpu.map_or("no GPU work".into(), |g| {
        format!(
            "ran from {} to {}",
            at(step, g.start_ns),
            at(step, g.end_ns)
        )
    })
}

/// The range whose own call `seq` is, by its place.
fn owner(step: &Traced, seq: u64) -> Option<usize> {
    step.nodes
        .iter()
        .position(|n| n.own.iter().any(|m| m.seqs.contains(&seq)))
}

/// A learner's value: one below zero, wrapped around as a `u64`, shown
/// as the negative number it was.
fn value(ns: u64) -> String {
    if ns > u64::MAX / 2 {
        format!("{} wrapped", signed(i128::from(ns as i64)))
    } else {
        us(ns)
    }
}

/// A row of four times.
fn times(t: &RangeTime) -> String {
    format!(
        "{:>13} {:>13} {:>13} {:>13}",
        value(t.cpu_ns),
        value(t.cpu_self_ns),
        value(t.gpu_ns),
        value(t.gpu_self_ns)
    )
}

/// The step's summary table: each range's truth and, where it differs,
/// the learner's row; row `marked` marked.
pub(crate) fn table(step: &Traced, said: &[RangeTime], marked: usize) -> String {
    let mut text = format!(
        "step {} (times to the nanosecond; a `you` line is your row where it differs):\n  {:<4} {:<24} {:>13} {:>13} {:>13} {:>13}\n",
        step.number, "row", "range", "cpu_ns", "cpu_self_ns", "gpu_ns", "gpu_self_ns"
    );
    for (i, truth) in step.truth.iter().enumerate() {
        let mark = if i == marked { "→" } else { " " };
        let node = &step.nodes[i];
        let name = format!("{}{}", "  ".repeat(node.depth as usize), node.name);
        let _ = writeln!(text, "{mark} {i:<4} {name:<24} {}", times(truth));
        if let Some(mine) = said.get(i).filter(|m| *m != truth) {
            let _ = writeln!(text, "  {:<4} {:<24} {}", "", "  you:", times(mine));
        }
    }
    text
}

/// The calls of range `i` of `step`, one line each: the CPU's time, the
/// GPU's, and the range they were made in.
pub(crate) fn calls(step: &Traced, i: usize) -> String {
    let node = &step.nodes[i];
    let mut text = if node.seqs.is_empty() {
        format!(
            "{} made no call; the first call after it (times from the step's first call):\n",
            range(step, i)
        )
    } else {
        format!(
            "the calls of {}, seq {} to {} (times from the step's first call):\n",
            range(step, i),
            node.seqs.start,
            node.seqs.end - 1
        )
    };
    let inside = step
        .trace
        .entries
        .iter()
        .filter(|e| node.seqs.contains(&e.seq) || e.seq == node.seqs.end);
    for e in inside {
        let whose = match owner(step, e.seq) {
            Some(o) if o == i => "its own".to_owned(),
            Some(o) if node.seqs.contains(&e.seq) => format!("in {}", range(step, o)),
            _ => "after it closed: not its call".to_owned(),
        };
        let _ = writeln!(
            text,
            "  {:>5}  {:<28} {:<10} CPU {:>13}  GPU {:<36} {whose}",
            e.seq,
            short(step, e),
            e.stream.map_or("—".into(), |s| format!("stream {s}")),
            at(step, e.cpu_start_ns),
            e.gpu.map_or("—".into(), |g| format!(
                "{} to {}",
                at(step, g.start_ns),
                at(step, g.end_ns)
            )),
        );
    }
    text
}
