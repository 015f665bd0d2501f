//! The causes a failure names, in the learner's terms: for each known
//! mistake, what the learner's number is and why it is not the range's
//! time, with the calls of the step that show it; for an unknown one, the
//! rule and the numbers it gives. (Over 400 lines: one short function per
//! cause, each the mistake's arithmetic and its sentence, side by side.)

use super::readings::{Column, Mistake, calls as range_calls, reading, work};
use super::runner::Traced;
use super::truth::Node;
use super::words::{at, call, ran, range, signed, us};
use attribute_ranges::RangeTime;
use gpu::{OpKind, TraceEntry};

/// Why the learner's `yours` for range `i`'s `column` is wrong: the
/// mistake the judge recognised, if any, else the rule.
pub(crate) fn cause(
    step: &Traced,
    i: usize,
    column: Column,
    mistake: Option<Mistake>,
    yours: u64,
) -> String {
    let own = column == Column::GpuSelf;
    let truth = column.of(&step.truth[i]);
    let wrapped = if yours > u64::MAX / 2 {
        format!(
            " ({}, below zero, wrapped around as a `u64`)",
            signed(i128::from(yours as i64))
        )
    } else {
        String::new()
    };
    let head = format!(
        "You said {}{wrapped} for {}, not {}",
        us(yours),
        range(step, i),
        us(truth)
    );
    let why = match mistake {
        Some(Mistake::NotSubtracted) if column == Column::CpuSelf => cpu_not_subtracted(step, i),
        Some(Mistake::NotSubtracted) => gpu_not_subtracted(step, i),
        Some(Mistake::MinusDescendants) => minus_descendants(step, i, column),
        Some(Mistake::MinusChildren) => minus_children(step, i),
        Some(Mistake::Summed) => summed(step, i, own),
        Some(Mistake::Extent) => extent(step, i, own),
        Some(Mistake::WhenItRan) => when_it_ran(step, i),
        Some(Mistake::OneCallTooMany) => one_call_too_many(step, i),
        Some(Mistake::KernelsOnly) => kernels_only(step, i, own),
        Some(Mistake::OwnOnly) => own_only(step, i),
        Some(Mistake::Microseconds) => format!(
            "you returned `{yours}`, the time in microseconds cut to a whole number. Every time of the trace is in nanoseconds, and so is every field of `RangeTime`: return `{truth}`"
        ),
        None => rule(step, i, column),
    };
    format!("{head}: {why}")
}

/// The rule of `column` for range `i`, with its numbers.
fn rule(step: &Traced, i: usize, column: Column) -> String {
    let r = &step.trace.ranges[i];
    match column {
        Column::Cpu => format!(
            "it was open on the CPU from {} to {}. A range's CPU time is `cpu_end_ns - cpu_start_ns` (`Range::cpu_ns`), nested ranges included",
            at(step, r.cpu_start_ns),
            at(step, r.cpu_end_ns)
        ),
        Column::CpuSelf => format!(
            "it was open {}, and {}. Its exclusive CPU time is its CPU time less that of its children, the ranges one level deeper inside it",
            us(r.cpu_ns()),
            children_cpu(step, i)
        ),
        Column::Gpu => format!(
            "the GPU was busy {} with the work its calls (seq {} to {}) queued, on every stream: the length of the union of their GPU spans, whenever they ran",
            us(step.truth[i].gpu_ns),
            r.first_seq,
            r.end_seq.saturating_sub(1)
        ),
        Column::GpuSelf => format!(
            "the GPU was busy {} with the work of its own calls, those made in it and in no range nested in it: the length of the union of their GPU spans",
            us(step.truth[i].gpu_self_ns)
        ),
    }
}

/// The children of range `i` and their CPU times, in words.
fn children_cpu(step: &Traced, i: usize) -> String {
    let children = &step.nodes[i].children;
    if children.is_empty() {
        return "no range is nested in it".into();
    }
    let each: Vec<String> = children
        .iter()
        .map(|&c| format!("{} {}", range(step, c), us(step.truth[c].cpu_ns)))
        .collect();
    format!("the ranges directly in it took {}", each.join(", "))
}

fn cpu_not_subtracted(step: &Traced, i: usize) -> String {
    format!(
        "that is its inclusive CPU time, given as its exclusive time, but {}, which is theirs. Subtract the CPU time of its children, the ranges one level deeper inside it",
        children_cpu(step, i)
    )
}

fn gpu_not_subtracted(step: &Traced, i: usize) -> String {
    format!(
        "that is its inclusive GPU time, the work of its nested ranges too. Its exclusive GPU time counts only its own calls, those made in it and in no range nested in it: the union of their GPU spans is {}",
        us(step.truth[i].gpu_self_ns)
    )
}

/// A range nested in a child of range `i`, and that child.
fn grandchild(step: &Traced, i: usize) -> Option<(usize, usize)> {
    let nodes = &step.nodes;
    nodes[i]
        .children
        .iter()
        .find_map(|&c| nodes[c].children.first().map(|&g| (g, c)))
}

fn minus_descendants(step: &Traced, i: usize, column: Column) -> String {
    let nested = Node::descendants(&step.nodes, i).len();
    let twice = grandchild(step, i).map_or(String::new(), |(g, c)| {
        format!(
            ": {} is nested in {}, whose time already holds it, so it was subtracted twice",
            range(step, g),
            range(step, c)
        )
    });
    let (what, fix) = match column {
        Column::CpuSelf => (
            "CPU",
            "Subtract only its children, the ranges one level deeper (`depth + 1`) inside it",
        ),
        _ => (
            "GPU",
            "Take the union of the GPU spans of its own calls, those in it and in no range nested in it",
        ),
    };
    format!(
        "you subtracted the {what} time of every range nested in it, at any depth ({nested} ranges){twice}. {fix}"
    )
}

/// An own call of range `i` and a call of one of its children whose GPU
/// spans overlap.
fn own_and_child_overlap(step: &Traced, i: usize) -> Option<(&TraceEntry, &TraceEntry, usize)> {
    let own = range_calls(step, i, true);
    step.nodes[i].children.iter().find_map(|&c| {
        let theirs = range_calls(step, c, false);
        own.iter().find_map(|a| {
            let b = theirs.iter().find(|b| overlap(a, b))?;
            Some((*a, *b, c))
        })
    })
}

/// Whether the GPU spans of `a` and `b` overlap.
fn overlap(a: &TraceEntry, b: &TraceEntry) -> bool {
    match (a.gpu, b.gpu) {
        (Some(x), Some(y)) => x.start_ns < y.end_ns && y.start_ns < x.end_ns,
        _ => false,
    }
}

fn minus_children(step: &Traced, i: usize) -> String {
    let children: u64 = step.nodes[i]
        .children
        .iter()
        .map(|&c| step.truth[c].gpu_ns)
        .sum();
    let difference = reading(step, i, Column::GpuSelf, Mistake::MinusChildren);
    let shown = format!(
        "you took its GPU time less its children's ({} - {} = {})",
        us(step.truth[i].gpu_ns),
        us(children),
        signed(difference)
    );
    let Some((a, b, c)) = own_and_child_overlap(step, i) else {
        return format!(
            "{shown}, but the work of its children overlapped on two streams, so their times add up to more than the time they took. Take the union of the GPU spans of its own calls alone, those in it and in no range nested in it"
        );
    };
    format!(
        "{shown}, but its own work and its children's ran at the same time on two streams: {} {}, while {}, in {}, {}. The time they overlap is in its children's time and in its own, so subtracting the children takes it away from its own work. Take the union of the GPU spans of its own calls alone, those in it and in no range nested in it",
        call(step, a),
        ran(step, a),
        call(step, b),
        range(step, c),
        ran(step, b)
    )
}

/// The first two calls of range `i` whose GPU spans overlap.
fn overlapping(step: &Traced, i: usize, own: bool) -> Option<(&TraceEntry, &TraceEntry)> {
    let mut timed: Vec<&TraceEntry> = range_calls(step, i, own)
        .into_iter()
        .filter(|e| e.gpu.is_some())
        .collect();
    timed.sort_by_key(|e| e.gpu.map(|g| g.start_ns));
    let mut longest: Option<&TraceEntry> = None;
    for e in timed {
        if let Some(l) = longest.filter(|l| overlap(l, e)) {
            return Some((l, e));
        }
        if longest.is_none_or(|l| e.gpu.map(|g| g.end_ns) > l.gpu.map(|g| g.end_ns)) {
            longest = Some(e);
        }
    }
    None
}

/// "its own calls" or "its calls".
fn whose(own: bool) -> &'static str {
    if own {
        "its own calls (in it and in no nested range)"
    } else {
        "its calls"
    }
}

fn summed(step: &Traced, i: usize, own: bool) -> String {
    let n = work(step, i, own).len();
    let pair = overlapping(step, i, own).map_or(String::new(), |(a, b)| {
        format!(
            ": {} {}, and {} {} meanwhile",
            call(step, a),
            ran(step, a),
            call(step, b),
            ran(step, b)
        )
    });
    format!(
        "you added up the lengths of the {n} GPU spans of {}, but spans on two streams overlap{pair}. The time two streams run at once was counted twice: take the union of the spans (sorted by start, each nanosecond once), not their sum",
        whose(own)
    )
}

/// The longest gap in the work of range `i`: the call before it, the
/// call after it, and its length.
fn longest_gap(step: &Traced, i: usize, own: bool) -> Option<(&TraceEntry, &TraceEntry, u64)> {
    let mut timed: Vec<&TraceEntry> = range_calls(step, i, own)
        .into_iter()
        .filter(|e| e.gpu.is_some())
        .collect();
    timed.sort_by_key(|e| e.gpu.map(|g| g.start_ns));
    let mut reach: Option<&TraceEntry> = None;
    let mut best: Option<(&TraceEntry, &TraceEntry, u64)> = None;
    for e in timed {
        let (start, end) = e.gpu.map_or((0, 0), |g| (g.start_ns, g.end_ns));
        if let Some(r) = reach {
            let r_end = r.gpu.map_or(0, |g| g.end_ns);
            if start > r_end && best.is_none_or(|b| start - r_end > b.2) {
                best = Some((r, e, start - r_end));
            }
        }
        if reach.is_none_or(|r| end > r.gpu.map_or(0, |g| g.end_ns)) {
            reach = Some(e);
        }
    }
    best
}

fn extent(step: &Traced, i: usize, own: bool) -> String {
    let gap = longest_gap(step, i, own).map_or(String::new(), |(a, b, n)| {
        format!(
            ": nothing of it ran for {} between the end of {} and the start of {}",
            us(n),
            call(step, a),
            call(step, b)
        )
    });
    format!(
        "that is the extent of the work of {}, from the first span's start to the last one's end (what `range_gpu_span` gives), but the GPU was not busy with it all that time{gap}. Gaps are not time: take the length of the union of the spans",
        whose(own)
    )
}

/// A call of range `i` whose GPU work began after the range closed.
fn ran_after_close(step: &Traced, i: usize) -> Option<&TraceEntry> {
    let end = step.trace.ranges[i].cpu_end_ns;
    range_calls(step, i, false)
        .into_iter()
        .find(|e| e.gpu.is_some_and(|g| g.start_ns > end))
}

fn when_it_ran(step: &Traced, i: usize) -> String {
    let r = &step.trace.ranges[i];
    let late = ran_after_close(step, i);
    let example = late.map_or(String::new(), |e| {
        format!(
            " {} was queued in it and {}, after the range closed at {}.",
            call(step, e),
            ran(step, e),
            at(step, r.cpu_end_ns)
        )
    });
    format!(
        "you counted the GPU's work while the CPU was in the range, from its open at {} to its close at {}, whoever queued it. The GPU runs work long after the CPU queues it:{example} Work belongs to the range whose call queued it, whenever it ran: take the GPU spans of the range's calls (`trace.range_entries(range)`), by `seq`, not the GPU's work during the range's CPU time",
        at(step, r.cpu_start_ns),
        at(step, r.cpu_end_ns)
    )
}

fn one_call_too_many(step: &Traced, i: usize) -> String {
    let r = &step.trace.ranges[i];
    let next = step.trace.entries.iter().find(|e| e.seq == r.end_seq);
    let named = next.map_or(format!("seq {}", r.end_seq), |e| {
        format!("{}, which {}", call(step, e), ran(step, e))
    });
    format!(
        "you counted the call at its `end_seq`, {named}: the first call after the range closed, not one of its calls (or of a range nested in it). `end_seq` is one past a range's last call: its calls are `first_seq <= seq < end_seq` (`Range::contains`, `trace.range_entries`)"
    )
}

fn kernels_only(step: &Traced, i: usize, own: bool) -> String {
    let copy = range_calls(step, i, own)
        .into_iter()
        .find(|e| e.op != OpKind::Launch && e.gpu.is_some());
    let example = copy.map_or(String::new(), |e| {
        format!(": {} is a copy, and it {}", call(step, e), ran(step, e))
    });
    format!(
        "you counted only the kernels (`OpKind::Launch`) among {}, but the GPU is busy with copies too{example}. Count every call with a `gpu` span",
        whose(own)
    )
}

fn own_only(step: &Traced, i: usize) -> String {
    let child = step.nodes[i]
        .children
        .iter()
        .find(|&&c| step.truth[c].gpu_ns > 0)
        .map_or(String::new(), |&c| {
            format!(
                " ({} kept the GPU busy {})",
                range(step, c),
                us(step.truth[c].gpu_ns)
            )
        });
    format!(
        "that is the work of its own calls alone, and the work of the ranges nested in it was left out{child}. A range's GPU time is inclusive: every call made while it was open (`first_seq <= seq < end_seq`), nested ranges' included; `gpu_self_ns` is the one without them"
    )
}

/// Whether range `i` shows mistake `m` of `column` with an example: the
/// row a failure is best about.
fn telling(step: &Traced, i: usize, column: Column, m: Option<Mistake>) -> bool {
    let own = column == Column::GpuSelf;
    match m {
        Some(Mistake::NotSubtracted | Mistake::OwnOnly) => !step.nodes[i].children.is_empty(),
        Some(Mistake::MinusDescendants) => grandchild(step, i).is_some(),
        Some(Mistake::MinusChildren) => own_and_child_overlap(step, i).is_some(),
        Some(Mistake::Summed) => overlapping(step, i, own).is_some(),
        Some(Mistake::Extent) => longest_gap(step, i, own).is_some(),
        Some(Mistake::WhenItRan) => ran_after_close(step, i).is_some(),
        Some(Mistake::KernelsOnly) => range_calls(step, i, own)
            .iter()
            .any(|e| e.op != OpKind::Launch && e.gpu.is_some()),
        Some(Mistake::OneCallTooMany | Mistake::Microseconds) | None => true,
    }
}

/// The row of `step` a failure about `wrong` rows of `column` is about:
/// the smallest range (fewest calls) among those that show the mistake
/// `m` with an example, else among all of them.
pub(crate) fn pick(
    step: &Traced,
    wrong: &[usize],
    column: Column,
    m: Option<Mistake>,
) -> Option<usize> {
    let size = |&i: &usize| (step.nodes[i].seqs.end - step.nodes[i].seqs.start, i);
    let shown = wrong
        .iter()
        .copied()
        .filter(|&i| telling(step, i, column, m));
    shown
        .min_by_key(size)
        .or_else(|| wrong.iter().copied().min_by_key(size))
}

/// The ranges of `step` in the order they closed: a range after those
/// nested in it.
fn close_order(step: &Traced) -> Vec<usize> {
    /// Pushes the ranges nested in `i`, each after its own, then `i`.
    fn after(nodes: &[Node], i: usize, closed: &mut Vec<usize>) {
        for &c in &nodes[i].children {
            after(nodes, c, closed);
        }
        closed.push(i);
    }
    let mut closed = Vec::new();
    for root in (0..step.nodes.len()).filter(|&i| step.nodes[i].parent.is_none()) {
        after(&step.nodes, root, &mut closed);
    }
    closed
}

/// Why the learner's rows for `step` are not in the order of
/// `trace.ranges`, if their CPU times say they are in another.
pub(crate) fn order_cause(step: &Traced, mine: &[RangeTime]) -> Option<String> {
    let cpu = |rows: &[RangeTime]| rows.iter().map(|r| r.cpu_ns).collect::<Vec<u64>>();
    let (truth, said) = (cpu(&step.truth), cpu(mine));
    if truth == said {
        return None;
    }
    let closed: Vec<u64> = close_order(step).iter().map(|&i| truth[i]).collect();
    if said == closed {
        return Some(format!(
            "your rows are in the order the ranges closed, each range after those nested in it (your row 0 is {}), not the order they were opened. Row `i` is the time of `trace.ranges[i]`: write each row where its range is, however you walk the nesting",
            range(step, close_order(step)[0])
        ));
    }
    let mut sorted = (truth.clone(), said.clone());
    sorted.0.sort_unstable();
    sorted.1.sort_unstable();
    if sorted.0 != sorted.1 {
        return None;
    }
    let k = (0..said.len()).find(|&k| said[k] != truth[k])?;
    let other = (0..truth.len()).find(|&j| truth[j] == said[k])?;
    Some(format!(
        "your rows are the ranges' times in another order: your row {k} is the CPU time of {}, not of {}. Row `i` is the time of `trace.ranges[i]`, in the order the ranges were opened",
        range(step, other),
        range(step, k)
    ))
}
