//! Attribute a step's time to its ranges: the summary table a profiler
//! prints under its timeline (`torch.profiler`'s `key_averages`, Nsight
//! Systems' NVTX range summary), computed from a [`Trace`].
//!
//! Each range of the trace gets four times ([`RangeTime`]): its CPU time,
//! from its open to its close, and its GPU time, how long the GPU was busy
//! with the work its calls queued, each inclusive (everything inside it)
//! and exclusive (less what the ranges nested in it account for). The
//! GPU's work belongs to the range whose call queued it, whenever it ran.

use gpu::{GpuSpan, Range, Trace, TraceEntry};

/// The time of one range, as a profiler's summary table shows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RangeTime {
    /// CPU time from the range's open to its close, nested ranges included.
    pub cpu_ns: u64,
    /// `cpu_ns` less the CPU time of the ranges directly nested in it.
    pub cpu_self_ns: u64,
    /// How long the GPU was busy with the work the range's calls queued,
    /// on any stream: the union of those spans, overlap counted once.
    pub gpu_ns: u64,
    /// How long the GPU was busy with the work queued in the range outside
    /// every range nested in it.
    pub gpu_self_ns: u64,
}

/// The time of every range of `trace`, in the order of `trace.ranges`.
pub fn attribute(trace: &Trace) -> Vec<RangeTime> {
    (0..trace.ranges.len()).map(|i| time_of(trace, i)).collect()
}

/// The time of `trace.ranges[i]`.
fn time_of(trace: &Trace, i: usize) -> RangeTime {
    let range = &trace.ranges[i];
    let children = children(&trace.ranges, i);
    let nested_cpu: u64 = children.iter().map(|c| c.cpu_ns()).sum();
    let entries = trace.range_entries(range);
    let own = entries
        .iter()
        .filter(|e| !children.iter().any(|c| c.contains(e.seq)));
    RangeTime {
        cpu_ns: range.cpu_ns(),
        cpu_self_ns: range.cpu_ns().saturating_sub(nested_cpu),
        gpu_ns: busy_ns(entries.iter()),
        gpu_self_ns: busy_ns(own),
    }
}

/// The ranges directly nested in `ranges[i]`: ranges come in the order
/// they were opened, so those nested in it follow it, up to the first one
/// that is not deeper; its children are the ones a level deeper.
fn children(ranges: &[Range], i: usize) -> Vec<&Range> {
    let depth = ranges[i].depth;
    ranges[i + 1..]
        .iter()
        .take_while(|r| r.depth > depth)
        .filter(|r| r.depth == depth + 1)
        .collect()
}

/// How long the GPU was busy with the work of `entries`: the length of
/// the union of their GPU spans, so that work on two streams at once
/// counts once and the gaps between spans count not at all.
fn busy_ns<'t>(entries: impl Iterator<Item = &'t TraceEntry>) -> u64 {
    let mut spans: Vec<GpuSpan> = entries.filter_map(|e| e.gpu).collect();
    spans.sort_unstable_by_key(|s| s.start_ns);
    let (mut busy, mut reach) = (0, 0);
    for span in spans {
        let start = span.start_ns.max(reach);
        if span.end_ns > start {
            busy += span.end_ns - start;
            reach = span.end_ns;
        }
    }
    busy
}
