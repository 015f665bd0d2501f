//! What a trace says about time: when the GPU ran which kind of work, and
//! how much of two kinds of work ran at once.

use gpu::{OpKind, Trace, TraceEntry};

/// The GPU intervals `(start, end)` of the entries `keep` selects, merged
/// where they touch or overlap.
pub(crate) fn busy(trace: &Trace, keep: impl Fn(&TraceEntry) -> bool) -> Vec<(u64, u64)> {
    let mut spans: Vec<(u64, u64)> = trace
        .entries
        .iter()
        .filter(|e| keep(e))
        .filter_map(|e| e.gpu.map(|g| (g.start_ns, g.end_ns)))
        .collect();
    spans.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::new();
    for (start, end) in spans {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

/// The total length of merged intervals, ns.
pub(crate) fn length(spans: &[(u64, u64)]) -> u64 {
    spans.iter().map(|(s, e)| e - s).sum()
}

/// How long two sets of merged intervals overlap, ns.
pub(crate) fn overlap(a: &[(u64, u64)], b: &[(u64, u64)]) -> u64 {
    let (mut i, mut j, mut total) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (start, end) = (a[i].0.max(b[j].0), a[i].1.min(b[j].1));
        total += end.saturating_sub(start);
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    total
}

/// Whether `e` is a kernel launch (run, not captured).
pub(crate) fn is_kernel(e: &TraceEntry) -> bool {
    matches!(e.op, OpKind::Launch | OpKind::GraphLaunch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_counts_the_shared_time_of_merged_spans() {
        assert_eq!(overlap(&[(0, 10), (20, 30)], &[(5, 25)]), 10);
        assert_eq!(overlap(&[(0, 10)], &[(10, 20)]), 0);
        assert_eq!(length(&[(0, 10), (20, 25)]), 15);
    }
}
