//! The truth of each range, from how the judge built the step: which
//! ranges it opened inside which, and which calls it made in each. The
//! times come from the judge's own trace of the step (the CPU's clock at
//! each open and close, each call's GPU span), in exact integer
//! nanoseconds.

use super::scenes::{Action, Part};
use attribute_ranges::RangeTime;
use gpu::{GpuSpan, Trace, TraceEntry};
use std::ops::Range;

/// A call the judge made, and the `seq`s of its trace entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Made {
    /// The call.
    pub(crate) action: Action,
    /// Its entries' `seq`s.
    pub(crate) seqs: Range<u64>,
}

/// A range as the judge opened it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Node {
    /// Its name.
    pub(crate) name: String,
    /// How many ranges were open around it.
    pub(crate) depth: u32,
    /// The range it was opened in, by its place among the step's ranges.
    pub(crate) parent: Option<usize>,
    /// The ranges opened directly in it, by their place.
    pub(crate) children: Vec<usize>,
    /// The `seq` of the first call after its open, and of the first after
    /// its close.
    pub(crate) seqs: Range<u64>,
    /// The calls made in it and in no range nested in it.
    pub(crate) own: Vec<Made>,
}

/// The ranges of a step's script, each part marked with the `seq`s of
/// its calls, in the order they were opened.
pub(crate) fn nodes(marked: &[(Part, Range<u64>)]) -> Vec<Node> {
    let (mut nodes, mut open): (Vec<Node>, Vec<usize>) = (Vec::new(), Vec::new());
    for (part, seqs) in marked {
        match part {
            Part::Open(name) => {
                let parent = open.last().copied();
                let place = nodes.len();
                if let Some(p) = parent {
                    nodes[p].children.push(place);
                }
                open.push(nodes.len());
                nodes.push(Node {
                    name: name.clone(),
                    depth: open.len() as u32 - 1,
                    parent,
                    children: Vec::new(),
                    seqs: seqs.start..seqs.start,
                    own: Vec::new(),
                });
            }
            Part::Close => {
                let closed = open.pop().expect("the script closes only what it opened");
                nodes[closed].seqs.end = seqs.start;
            }
            Part::Do(action) => {
                let inner = *open.last().expect("every call is made in a range");
                nodes[inner].own.push(Made {
                    action: *action,
                    seqs: seqs.clone(),
                });
            }
        }
    }
    nodes
}

impl Node {
    /// The ranges nested in it at any depth, by their place: those after
    /// it in open order, up to the first that is not deeper.
    pub(crate) fn descendants(nodes: &[Node], i: usize) -> Range<usize> {
        let after = nodes[i + 1..]
            .iter()
            .take_while(|n| n.depth > nodes[i].depth)
            .count();
        i + 1..i + 1 + after
    }

    /// The `seq`s of the calls made in range `i`, nested ranges included.
    pub(crate) fn all_seqs(nodes: &[Node], i: usize) -> Vec<u64> {
        let mut seqs = Node::own_seqs(&nodes[i]);
        for d in Node::descendants(nodes, i) {
            seqs.extend(Node::own_seqs(&nodes[d]));
        }
        seqs.sort_unstable();
        seqs
    }

    /// The `seq`s of the calls made in `node` and in no range nested in it.
    pub(crate) fn own_seqs(node: &Node) -> Vec<u64> {
        node.own.iter().flat_map(|m| m.seqs.clone()).collect()
    }
}

/// The entries of `trace` whose `seq` is one of `seqs`.
pub(crate) fn entries_of<'t>(trace: &'t Trace, seqs: &[u64]) -> Vec<&'t TraceEntry> {
    trace
        .entries
        .iter()
        .filter(|e| seqs.binary_search(&e.seq).is_ok())
        .collect()
}

/// The GPU spans of `entries`.
pub(crate) fn spans(entries: &[&TraceEntry]) -> Vec<GpuSpan> {
    entries.iter().filter_map(|e| e.gpu).collect()
}

/// The length of the union of `spans`: each nanosecond once.
pub(crate) fn union_ns(spans: &[GpuSpan]) -> u64 {
    let mut sorted: Vec<(u64, u64)> = spans.iter().map(|s| (s.start_ns, s.end_ns)).collect();
    sorted.sort_unstable();
    let (mut total, mut reach) = (0, 0);
    for (start, end) in sorted {
        let start = start.max(reach);
        if end > start {
            total += end - start;
            reach = end;
        }
    }
    total
}

/// Why the judge's trace does not hold the ranges as the judge opened
/// them, if it does not.
fn mismatch(trace: &Trace, nodes: &[Node]) -> Option<String> {
    if trace.ranges.len() != nodes.len() {
        return Some(format!(
            "{} ranges traced, {} opened",
            trace.ranges.len(),
            nodes.len()
        ));
    }
    trace.ranges.iter().zip(nodes).find_map(|(r, n)| {
        let same = r.name == n.name && r.depth == n.depth && (r.first_seq..r.end_seq) == n.seqs;
        (!same).then(|| format!("range `{}` traced as {r:?}", n.name))
    })
}

/// Each range's time in `trace`, the step's trace, by how the step was
/// built (`nodes`); an error when the trace's ranges are not the ones the
/// judge opened.
pub(crate) fn truth(trace: &Trace, nodes: &[Node]) -> Result<Vec<RangeTime>, String> {
    if let Some(why) = mismatch(trace, nodes) {
        return Err(why);
    }
    let cpu: Vec<u64> = trace.ranges.iter().map(gpu::Range::cpu_ns).collect();
    let busy = |seqs: &[u64]| union_ns(&spans(&entries_of(trace, seqs)));
    let times = nodes.iter().enumerate().map(|(i, node)| {
        let nested: u64 = node.children.iter().map(|&c| cpu[c]).sum();
        RangeTime {
            cpu_ns: cpu[i],
            cpu_self_ns: cpu[i] - nested,
            gpu_ns: busy(&Node::all_seqs(nodes, i)),
            gpu_self_ns: busy(&Node::own_seqs(node)),
        }
    });
    Ok(times.collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start_ns: u64, end_ns: u64) -> GpuSpan {
        GpuSpan { start_ns, end_ns }
    }

    #[test]
    fn the_union_counts_overlap_once_and_gaps_not_at_all() {
        let spans = [
            span(20, 30),
            span(0, 10),
            span(5, 15),
            span(22, 25),
            span(40, 40),
        ];
        assert_eq!(union_ns(&spans), 25);
        assert_eq!(union_ns(&[]), 0);
    }

    #[test]
    fn the_script_gives_each_range_its_parent_children_and_own_calls() {
        let call = Part::Do(Action::Fork);
        let open = |name: &str| Part::Open(name.into());
        let marked = [
            (open("step"), 0..0),
            (call.clone(), 0..2),
            (open("a"), 2..2),
            (open("b"), 2..2),
            (call, 2..4),
            (Part::Close, 4..4),
            (Part::Close, 4..4),
            (open("c"), 4..4),
            (Part::Close, 4..4),
            (Part::Close, 4..4),
        ];
        let nodes = nodes(&marked);
        let names: Vec<(&str, u32, Option<usize>)> = nodes
            .iter()
            .map(|n| (n.name.as_str(), n.depth, n.parent))
            .collect();
        assert_eq!(
            names,
            [
                ("step", 0, None),
                ("a", 1, Some(0)),
                ("b", 2, Some(1)),
                ("c", 1, Some(0))
            ]
        );
        assert_eq!(nodes[0].children, [1, 3]);
        assert_eq!((nodes[0].seqs.clone(), nodes[1].seqs.clone()), (0..4, 2..4));
        assert_eq!(Node::descendants(&nodes, 0), 1..4);
        assert_eq!(Node::all_seqs(&nodes, 0), [0, 1, 2, 3]);
        assert_eq!(Node::all_seqs(&nodes, 1), [2, 3]);
        assert_eq!(Node::own_seqs(&nodes[0]), [0, 1]);
        assert!(nodes[3].own.is_empty() && nodes[3].seqs.is_empty());
    }
}
