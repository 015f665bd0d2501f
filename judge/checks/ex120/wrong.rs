//! `attribute`s for the suite's own tests, written over the trace as a
//! learner writes them: another right way (children found with
//! `Range::encloses`, the union swept over start and end events) and the
//! known-wrong ones whose messages `tests.rs` snapshots, each one mistake
//! of a [`Way`] that is otherwise right.

use attribute_ranges::RangeTime;
use gpu::{GpuSpan, OpKind, Range, Trace, TraceEntry};

/// How the busy time of a set of spans is taken.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Busy {
    Union,
    Sum,
    Extent,
}

/// Which GPU work counts for a range.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Inside {
    /// The calls `first_seq <= seq < end_seq`.
    Seq,
    /// The calls `first_seq <= seq <= end_seq`.
    SeqThroughEnd,
    /// Any work, clipped to the range's CPU time.
    Window,
}

/// What an exclusive time subtracts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Less {
    /// Right: the children (CPU), or the children's calls (GPU).
    Children,
    /// Nothing: the inclusive time.
    Nothing,
    /// Every nested range's time, at any depth.
    Descendants,
    /// The children's GPU time from the inclusive GPU time.
    ChildrenTime,
}

/// One way to write `attribute`: every knob right but one.
#[derive(Clone, Copy)]
struct Way {
    busy: Busy,
    inside: Inside,
    kernels_only: bool,
    cpu_less: Less,
    gpu_less: Less,
    close_order: bool,
    skip_idle: bool,
}

const RIGHT: Way = Way {
    busy: Busy::Union,
    inside: Inside::Seq,
    kernels_only: false,
    cpu_less: Less::Children,
    gpu_less: Less::Children,
    close_order: false,
    skip_idle: false,
};

/// The ranges of `trace` nested in range `i`: all of them, or its
/// children (one level deeper). Only a range opened after it can be (an
/// empty range closed just before it opened looks enclosed).
fn nested(trace: &Trace, i: usize, children_only: bool) -> Vec<usize> {
    let r = &trace.ranges[i];
    (i + 1..trace.ranges.len())
        .filter(|&j| r.encloses(&trace.ranges[j]))
        .filter(|&j| !children_only || trace.ranges[j].depth == r.depth + 1)
        .collect()
}

/// The length of the union of `spans`, swept over their start and end
/// events.
fn swept(spans: &[GpuSpan]) -> u64 {
    let mut events: Vec<(u64, i32)> = spans
        .iter()
        .flat_map(|s| [(s.start_ns, 1), (s.end_ns, -1)])
        .collect();
    events.sort_unstable();
    let (mut open, mut since, mut busy) = (0, 0, 0);
    for (t, step) in events {
        if open > 0 {
            busy += t - since;
        }
        open += step;
        since = t;
    }
    busy
}

fn busy(spans: &[GpuSpan], how: Busy) -> u64 {
    match how {
        Busy::Union => swept(spans),
        Busy::Sum => spans.iter().map(|s| s.end_ns - s.start_ns).sum(),
        Busy::Extent => {
            let start = spans.iter().map(|s| s.start_ns).min().unwrap_or(0);
            spans.iter().map(|s| s.end_ns).max().unwrap_or(0) - start
        }
    }
}

/// Whether call `e` counts for range `r`, by `seq`.
fn counts(r: &Range, e: &TraceEntry, inside: Inside) -> bool {
    match inside {
        Inside::SeqThroughEnd => r.first_seq <= e.seq && e.seq <= r.end_seq,
        _ => r.contains(e.seq),
    }
}

/// The GPU spans that count for range `i`: all, or (`own`) outside its
/// children.
fn spans_of(trace: &Trace, i: usize, own: bool, way: Way) -> Vec<GpuSpan> {
    let r = &trace.ranges[i];
    let kids = if own {
        nested(trace, i, true)
    } else {
        Vec::new()
    };
    if way.inside == Inside::Window {
        let mut windows = vec![(r.cpu_start_ns, r.cpu_end_ns)];
        for k in kids.iter().map(|&k| &trace.ranges[k]) {
            windows = windows
                .into_iter()
                .flat_map(|(a, b)| [(a, b.min(k.cpu_start_ns)), (a.max(k.cpu_end_ns), b)])
                .filter(|(a, b)| b > a)
                .collect();
        }
        let all: Vec<GpuSpan> = trace.entries.iter().filter_map(|e| e.gpu).collect();
        return windows
            .iter()
            .flat_map(|&(a, b)| {
                all.iter().map(move |s| GpuSpan {
                    start_ns: s.start_ns.clamp(a, b),
                    end_ns: s.end_ns.clamp(a, b),
                })
            })
            .collect();
    }
    trace
        .entries
        .iter()
        .filter(|e| counts(r, e, way.inside))
        .filter(|e| {
            !kids
                .iter()
                .any(|&k| counts(&trace.ranges[k], e, way.inside))
        })
        .filter(|e| !way.kernels_only || e.op == OpKind::Launch)
        .filter_map(|e| e.gpu)
        .collect()
}

/// Range `i`'s inclusive GPU time, the `way` way.
fn gpu_ns(trace: &Trace, i: usize, way: Way) -> u64 {
    busy(&spans_of(trace, i, false, way), way.busy)
}

/// Range `i`'s row, the `way` way.
fn row(trace: &Trace, i: usize, way: Way) -> RangeTime {
    let cpu = trace.ranges[i].cpu_ns();
    let less = |how: Less, of: &dyn Fn(usize) -> u64| -> u64 {
        match how {
            Less::Nothing => 0,
            Less::Descendants => nested(trace, i, false).into_iter().map(of).sum(),
            _ => nested(trace, i, true).into_iter().map(of).sum(),
        }
    };
    let gpu = gpu_ns(trace, i, way);
    let gpu_self = match way.gpu_less {
        Less::Children => busy(&spans_of(trace, i, true, way), way.busy),
        other => gpu.wrapping_sub(less(other, &|k| gpu_ns(trace, k, way))),
    };
    RangeTime {
        cpu_ns: cpu,
        cpu_self_ns: cpu.saturating_sub(less(way.cpu_less, &|k| trace.ranges[k].cpu_ns())),
        gpu_ns: gpu,
        gpu_self_ns: gpu_self,
    }
}

/// The table of `trace`, the `way` way.
fn table(trace: &Trace, way: Way) -> Vec<RangeTime> {
    let mut rows: Vec<(u64, u32, usize, RangeTime)> = (0..trace.ranges.len())
        .filter(|&i| !way.skip_idle || trace.range_gpu_span(&trace.ranges[i], None).is_some())
        .map(|i| {
            let r = &trace.ranges[i];
            (r.end_seq, u32::MAX - r.depth, i, row(trace, i, way))
        })
        .collect();
    if way.close_order {
        rows.sort_by_key(|r| (r.0, r.1, r.2));
    }
    rows.into_iter().map(|r| r.3).collect()
}

/// Right, another way: children by `encloses`, the union swept.
pub(super) fn by_enclosure(trace: &Trace) -> Vec<RangeTime> {
    table(trace, RIGHT)
}

/// The GPU spans' lengths added up: overlap counted twice.
pub(super) fn summed(trace: &Trace) -> Vec<RangeTime> {
    table(
        trace,
        Way {
            busy: Busy::Sum,
            ..RIGHT
        },
    )
}

/// The GPU extent (`range_gpu_span`) as the busy time: gaps counted.
pub(super) fn extent(trace: &Trace) -> Vec<RangeTime> {
    table(
        trace,
        Way {
            busy: Busy::Extent,
            ..RIGHT
        },
    )
}

/// The GPU's work during the range's CPU time, whoever queued it.
pub(super) fn when_it_ran(trace: &Trace) -> Vec<RangeTime> {
    table(
        trace,
        Way {
            inside: Inside::Window,
            ..RIGHT
        },
    )
}

/// `end_seq` taken as the last call's.
pub(super) fn through_end_seq(trace: &Trace) -> Vec<RangeTime> {
    table(
        trace,
        Way {
            inside: Inside::SeqThroughEnd,
            ..RIGHT
        },
    )
}

/// Kernels only: copies left out.
pub(super) fn kernels_only(trace: &Trace) -> Vec<RangeTime> {
    table(
        trace,
        Way {
            kernels_only: true,
            ..RIGHT
        },
    )
}

/// Exclusive CPU time as the inclusive one.
pub(super) fn cpu_self_inclusive(trace: &Trace) -> Vec<RangeTime> {
    table(
        trace,
        Way {
            cpu_less: Less::Nothing,
            ..RIGHT
        },
    )
}

/// Exclusive CPU time less every nested range's, at any depth.
pub(super) fn cpu_self_less_descendants(trace: &Trace) -> Vec<RangeTime> {
    table(
        trace,
        Way {
            cpu_less: Less::Descendants,
            ..RIGHT
        },
    )
}

/// Exclusive GPU time as the inclusive one.
pub(super) fn gpu_self_inclusive(trace: &Trace) -> Vec<RangeTime> {
    table(
        trace,
        Way {
            gpu_less: Less::Nothing,
            ..RIGHT
        },
    )
}

/// Exclusive GPU time as the inclusive one less the children's.
pub(super) fn gpu_self_less_children(trace: &Trace) -> Vec<RangeTime> {
    table(
        trace,
        Way {
            gpu_less: Less::ChildrenTime,
            ..RIGHT
        },
    )
}

/// Exclusive GPU time less every nested range's GPU time, at any depth.
pub(super) fn gpu_self_less_descendants(trace: &Trace) -> Vec<RangeTime> {
    table(
        trace,
        Way {
            gpu_less: Less::Descendants,
            ..RIGHT
        },
    )
}

/// The rows in the order the ranges closed.
pub(super) fn close_order(trace: &Trace) -> Vec<RangeTime> {
    table(
        trace,
        Way {
            close_order: true,
            ..RIGHT
        },
    )
}

/// No row for a range that queued no GPU work.
pub(super) fn skips_idle_ranges(trace: &Trace) -> Vec<RangeTime> {
    table(
        trace,
        Way {
            skip_idle: true,
            ..RIGHT
        },
    )
}

/// The rows of another order: sorted by name.
pub(super) fn by_name(trace: &Trace) -> Vec<RangeTime> {
    let mut rows: Vec<(&str, RangeTime)> = trace
        .ranges
        .iter()
        .zip(table(trace, RIGHT))
        .map(|(r, t)| (r.name.as_str(), t))
        .collect();
    rows.sort_by_key(|r| r.0);
    rows.into_iter().map(|r| r.1).collect()
}

/// Every time in microseconds, cut to a whole number.
pub(super) fn microseconds(trace: &Trace) -> Vec<RangeTime> {
    let us = |ns: u64| ns / 1000;
    table(trace, RIGHT)
        .into_iter()
        .map(|t| RangeTime {
            cpu_ns: us(t.cpu_ns),
            cpu_self_ns: us(t.cpu_self_ns),
            gpu_ns: us(t.gpu_ns),
            gpu_self_ns: us(t.gpu_self_ns),
        })
        .collect()
}
