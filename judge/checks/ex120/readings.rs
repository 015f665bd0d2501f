//! The known-wrong readings of a range's time: what a learner's answer is
//! when it makes one mistake, computed by the judge from the same trace,
//! so that a failure can name the mistake it sees. A reading explains a
//! column of the answers when every row the learner got wrong is that
//! reading's value.

use super::runner::Traced;
use super::truth::{Node, entries_of, spans, union_ns};
use attribute_ranges::RangeTime;
use gpu::{GpuSpan, OpKind, TraceEntry};

/// A column of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Column {
    Cpu,
    CpuSelf,
    Gpu,
    GpuSelf,
}

impl Column {
    /// The column's value in `row`.
    pub(crate) fn of(self, row: &RangeTime) -> u64 {
        match self {
            Self::Cpu => row.cpu_ns,
            Self::CpuSelf => row.cpu_self_ns,
            Self::Gpu => row.gpu_ns,
            Self::GpuSelf => row.gpu_self_ns,
        }
    }

    /// The field's name.
    pub(crate) fn field(self) -> &'static str {
        match self {
            Self::Cpu => "cpu_ns",
            Self::CpuSelf => "cpu_self_ns",
            Self::Gpu => "gpu_ns",
            Self::GpuSelf => "gpu_self_ns",
        }
    }
}

/// A mistake a learner makes in a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mistake {
    /// Exclusive asked, inclusive given: nested ranges not subtracted.
    NotSubtracted,
    /// Every nested range subtracted, at any depth: grandchildren twice.
    MinusDescendants,
    /// Exclusive GPU time as inclusive less the children's GPU time.
    MinusChildren,
    /// The spans' lengths added up: overlap counted twice.
    Summed,
    /// First start to last end (`range_gpu_span`): gaps counted.
    Extent,
    /// The GPU's work while the CPU was in the range, whoever queued it.
    WhenItRan,
    /// `end_seq` taken as the last call's: one call too many.
    OneCallTooMany,
    /// Only `Launch` entries: copies left out.
    KernelsOnly,
    /// Inclusive asked, the range's own work alone given.
    OwnOnly,
    /// The right time, in microseconds rather than nanoseconds.
    Microseconds,
}

/// The mistakes the checks of `column` recognise, the likelier first.
pub(crate) fn mistakes(column: Column) -> &'static [Mistake] {
    use Mistake::*;
    match column {
        Column::Cpu => &[Microseconds],
        Column::CpuSelf => &[NotSubtracted, MinusDescendants, Microseconds],
        Column::Gpu => &[
            Summed,
            Extent,
            WhenItRan,
            OneCallTooMany,
            KernelsOnly,
            OwnOnly,
            Microseconds,
        ],
        Column::GpuSelf => &[
            NotSubtracted,
            MinusChildren,
            MinusDescendants,
            Summed,
            Extent,
            WhenItRan,
            OneCallTooMany,
            KernelsOnly,
            Microseconds,
        ],
    }
}

/// Whether the learner's `said` is `value`, a reading that may be below
/// zero: a `u64` saturates there, or wraps.
fn is(said: u64, value: i128) -> bool {
    said as i128 == value || (value < 0 && (said == 0 || said == value as u64))
}

/// The mistake of `column` that explains `said` for `step`: the first
/// whose reading is the learner's value in every row the learner got wrong.
pub(crate) fn explain(step: &Traced, said: &[RangeTime], column: Column) -> Option<Mistake> {
    let wrong: Vec<usize> = (0..step.truth.len())
        .filter(|&i| column.of(&said[i]) != column.of(&step.truth[i]))
        .collect();
    if wrong.is_empty() {
        return None;
    }
    mistakes(column).iter().copied().find(|&m| {
        wrong
            .iter()
            .all(|&i| is(column.of(&said[i]), reading(step, i, column, m)))
    })
}

/// The value of range `i`'s `column` under mistake `m`.
pub(crate) fn reading(step: &Traced, i: usize, column: Column, m: Mistake) -> i128 {
    let own = column == Column::GpuSelf;
    match (column, m) {
        (Column::CpuSelf, Mistake::NotSubtracted) => step.truth[i].cpu_ns.into(),
        (Column::CpuSelf, Mistake::MinusDescendants) => minus_descendants(step, i, |t| t.cpu_ns),
        (Column::GpuSelf, Mistake::NotSubtracted) => step.truth[i].gpu_ns.into(),
        (Column::GpuSelf, Mistake::MinusDescendants) => minus_descendants(step, i, |t| t.gpu_ns),
        (Column::GpuSelf, Mistake::MinusChildren) => minus_children(step, i),
        (_, Mistake::Summed) => sum_ns(&work(step, i, own)).into(),
        (_, Mistake::Extent) => extent_ns(&work(step, i, own)).into(),
        (_, Mistake::WhenItRan) => when_it_ran(step, i, own).into(),
        (_, Mistake::OneCallTooMany) => one_call_too_many(step, i, own).into(),
        (_, Mistake::KernelsOnly) => kernels_only(step, i, own).into(),
        (Column::Gpu, Mistake::OwnOnly) => step.truth[i].gpu_self_ns.into(),
        (_, Mistake::Microseconds) => (column.of(&step.truth[i]) / 1000).into(),
        _ => -1,
    }
}

/// Range `i`'s value `of` less that of every range nested in it.
fn minus_descendants(step: &Traced, i: usize, of: fn(&RangeTime) -> u64) -> i128 {
    let nested: i128 = Node::descendants(&step.nodes, i)
        .map(|d| i128::from(of(&step.truth[d])))
        .sum();
    i128::from(of(&step.truth[i])) - nested
}

/// Range `i`'s GPU time less its children's.
fn minus_children(step: &Traced, i: usize) -> i128 {
    let children: i128 = step.nodes[i]
        .children
        .iter()
        .map(|&c| i128::from(step.truth[c].gpu_ns))
        .sum();
    i128::from(step.truth[i].gpu_ns) - children
}

/// The `seq`s of range `i`'s calls: its own, or all of them.
pub(crate) fn seqs(step: &Traced, i: usize, own: bool) -> Vec<u64> {
    if own {
        Node::own_seqs(&step.nodes[i])
    } else {
        Node::all_seqs(&step.nodes, i)
    }
}

/// The entries of range `i`'s calls: its own, or all of them.
pub(crate) fn calls(step: &Traced, i: usize, own: bool) -> Vec<&TraceEntry> {
    entries_of(&step.trace, &seqs(step, i, own))
}

/// The GPU spans of range `i`'s calls: its own, or all of them.
pub(crate) fn work(step: &Traced, i: usize, own: bool) -> Vec<GpuSpan> {
    spans(&calls(step, i, own))
}

/// The spans' lengths added up.
pub(crate) fn sum_ns(spans: &[GpuSpan]) -> u64 {
    spans.iter().map(|s| s.end_ns - s.start_ns).sum()
}

/// From the earliest start to the latest end.
pub(crate) fn extent_ns(spans: &[GpuSpan]) -> u64 {
    let start = spans.iter().map(|s| s.start_ns).min();
    let end = spans.iter().map(|s| s.end_ns).max();
    start.zip(end).map_or(0, |(s, e)| e - s)
}

/// The windows of the CPU's time in range `i`: from its open to its
/// close, or, `own`, less the windows of the ranges directly in it.
fn windows(step: &Traced, i: usize, own: bool) -> Vec<(u64, u64)> {
    let r = &step.trace.ranges[i];
    let mut windows = vec![(r.cpu_start_ns, r.cpu_end_ns)];
    if own {
        for &c in &step.nodes[i].children {
            let child = &step.trace.ranges[c];
            windows = windows
                .into_iter()
                .flat_map(|(a, b)| [(a, b.min(child.cpu_start_ns)), (a.max(child.cpu_end_ns), b)])
                .filter(|(a, b)| b > a)
                .collect();
        }
    }
    windows
}

/// The GPU's busy time, any work of the step, while the CPU was in range
/// `i` (or, `own`, in it and in no range nested in it).
pub(crate) fn when_it_ran(step: &Traced, i: usize, own: bool) -> u64 {
    let all: Vec<GpuSpan> = step.trace.entries.iter().filter_map(|e| e.gpu).collect();
    let clipped: Vec<GpuSpan> = windows(step, i, own)
        .into_iter()
        .flat_map(|(a, b)| {
            all.iter().map(move |s| GpuSpan {
                start_ns: s.start_ns.clamp(a, b),
                end_ns: s.end_ns.clamp(a, b),
            })
        })
        .collect();
    union_ns(&clipped)
}

/// The busy time of range `i`'s calls with the call at each `end_seq`
/// counted in: `seq <= end_seq`.
pub(crate) fn one_call_too_many(step: &Traced, i: usize, own: bool) -> u64 {
    let inside = |r: &gpu::Range, seq: u64| r.first_seq <= seq && seq <= r.end_seq;
    let range = &step.trace.ranges[i];
    let children = &step.nodes[i].children;
    let counted = step.trace.entries.iter().filter(|e| {
        inside(range, e.seq)
            && !(own
                && children
                    .iter()
                    .any(|&c| inside(&step.trace.ranges[c], e.seq)))
    });
    union_ns(&counted.filter_map(|e| e.gpu).collect::<Vec<_>>())
}

/// The busy time of range `i`'s kernels alone.
pub(crate) fn kernels_only(step: &Traced, i: usize, own: bool) -> u64 {
    let calls = calls(step, i, own);
    let kernels: Vec<&TraceEntry> = calls
        .into_iter()
        .filter(|e| e.op == OpKind::Launch)
        .collect();
    union_ns(&spans(&kernels))
}
