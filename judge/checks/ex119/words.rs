//! The calls and the waits in words: what a call is, when it ran on the
//! CPU against the GPU's work, what each kind of wait waits for, and the
//! step as a listing around the call a failure is about.

use super::runner::Traced;
use super::timeline::ended_in;
use find_the_wait::{Wait, WaitKind};
use gpu::{OpKind, TraceEntry};

/// The section on waits.
pub(crate) const WAITS: &str = "profiling.md#where-the-cpu-waits";
/// The section on the rows of a profile.
pub(crate) const ROWS: &str = "profiling.md#what-a-profile-shows";
/// The section on this exercise's judge.
pub(crate) const RUNNING: &str = "profiling.md#running-the-judge-on-exercise-119";

/// A call as the trace names it: its seq, its name and its stream.
pub(crate) fn call(e: &TraceEntry) -> String {
    match e.stream {
        Some(s) => format!("seq {}, `{}` on stream {s}", e.seq, e.name),
        None => format!("seq {}, `{}`", e.seq, e.name),
    }
}

/// `ns` of the trace's clock as microseconds from the step's start.
pub(crate) fn at(step: &Traced, ns: u64) -> String {
    format!("{:.1} µs", ns.saturating_sub(origin(step)) as f64 / 1e3)
}

/// A duration of `ns` in microseconds.
pub(crate) fn lasting(ns: u64) -> String {
    format!("{:.1} µs", ns as f64 / 1e3)
}

/// When the step's first call began, on the trace's clock.
fn origin(step: &Traced) -> u64 {
    step.trace.entries.first().map_or(0, |e| e.cpu_start_ns)
}

/// When the CPU was in `e`, in words.
pub(crate) fn cpu_row(step: &Traced, e: &TraceEntry) -> String {
    format!(
        "the CPU entered it at {} and left at {} ({})",
        at(step, e.cpu_start_ns),
        at(step, e.cpu_end_ns),
        lasting(e.cpu_ns())
    )
}

/// The GPU work that ended while the CPU was in `e`, in words: the last
/// of it to end.
pub(crate) fn what_ended(step: &Traced, e: &TraceEntry) -> String {
    let ended = ended_in(&step.trace.entries, e);
    match ended.iter().max_by_key(|g| g.gpu.map(|s| s.end_ns)) {
        Some(g) => format!(
            "when the GPU row of {} ended, at {}",
            call(g),
            at(step, g.gpu.map_or(0, |s| s.end_ns))
        ),
        None => "with no GPU work of the step ending meanwhile".into(),
    }
}

/// The kind of wait a call of `op` makes when it waits.
pub(crate) fn kind_of(op: OpKind) -> Option<WaitKind> {
    match op {
        OpKind::StreamSynchronize | OpKind::EventSynchronize | OpKind::DeviceSynchronize => {
            Some(WaitKind::Synchronize)
        }
        OpKind::EventElapsed => Some(WaitKind::ElapsedTime),
        OpKind::CopyDeviceToHost => Some(WaitKind::PageableDownload),
        OpKind::CopyHostToDevice => Some(WaitKind::PageableUpload),
        OpKind::FreeSegment | OpKind::FreePinned => Some(WaitKind::RawFree),
        _ => None,
    }
}

/// Why a call of `kind` waits, and which calls are of that kind.
pub(crate) fn rule(kind: WaitKind) -> &'static str {
    match kind {
        WaitKind::Synchronize => {
            "a stream, event or device synchronize waits for the work it names, when that has not finished: `Synchronize`"
        }
        WaitKind::ElapsedTime => {
            "reading the time between two events (`elapsed_ms`) waits until the later event has completed: `ElapsedTime`"
        }
        WaitKind::PageableDownload => {
            "a copy into pageable memory (`to_vec`, `copy_to_host`; PyTorch's `.item()`) returns only once the data is in the `Vec`, so it waits for everything queued before it on its stream: `PageableDownload`"
        }
        WaitKind::PageableUpload => {
            "a copy from pageable memory larger than the driver's staging buffer is staged piece by piece as the copy engine drains it, so it waits for its stream to get there: `PageableUpload`"
        }
        WaitKind::RawFree => {
            "a raw free (`cuMemFree`, `cuMemFreeHost`) waits until the whole device is idle, as the driver cannot know who still uses the memory: `RawFree`"
        }
    }
}

/// The step's calls around `seq`, one line each: the CPU's time, the
/// GPU's, the truth and the learner's answer; `seq` marked.
pub(crate) fn listing(step: &Traced, seq: u64, said: &[Wait]) -> String {
    let mut text = format!(
        "step {} (times from its first call; `waited` is the truth, `you` your answer):\n",
        step.number
    );
    let lines = step
        .trace
        .entries
        .iter()
        .filter(|e| e.seq + 6 >= seq && e.seq <= seq + 3);
    for e in lines {
        text += &line(step, e, e.seq == seq, said);
    }
    text
}

/// One line of a listing.
fn line(step: &Traced, e: &TraceEntry, marked: bool, said: &[Wait]) -> String {
    let mark = if marked { "→" } else { " " };
    let gpu = e.gpu.map_or("—".into(), |s| {
        format!("{} to {}", at(step, s.start_ns), at(step, s.end_ns))
    });
    let truth = step.call(e.seq).and_then(|c| c.waits);
    let yours: Vec<String> = said
        .iter()
        .filter(|w| w.seq == e.seq)
        .map(|w| format!("{:?}", w.kind))
        .collect();
    let stream = e.stream.map_or(String::new(), |s| format!(" (stream {s})"));
    format!(
        "{mark} {:>4}  {}{stream}  CPU {} to {}  GPU {gpu}  waited: {}  you: {}\n",
        e.seq,
        e.name,
        at(step, e.cpu_start_ns),
        at(step, e.cpu_end_ns),
        truth.map_or("—".into(), |k| format!("{k:?}")),
        if yours.is_empty() {
            "—".into()
        } else {
            yours.join(", ")
        }
    )
}
