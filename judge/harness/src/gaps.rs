//! CPU time outside every traced call: a stretch between two calls into the
//! `gpu` crate (a busy loop on a host clock, a sleep, a long loop of the
//! learner's own) that no trace entry covers. A check that finds the CPU
//! slow must not blame the nearest traced call for it: it says where the
//! time went, between which two calls.

use gpu::TraceEntry;

/// A stretch of CPU time no trace entry covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gap<'t> {
    /// Its length.
    pub ns: u64,
    /// The call that returned just before it (none: it began the stretch
    /// looked at).
    pub after: Option<&'t TraceEntry>,
    /// The call entered just after it (none: it ended the stretch).
    pub before: Option<&'t TraceEntry>,
}

/// The longest stretch of `[start_ns, end_ns]` (the CPU clock) outside every
/// call of `entries` (in trace order), if any time is.
pub fn longest_gap<'t>(
    entries: impl IntoIterator<Item = &'t TraceEntry>,
    start_ns: u64,
    end_ns: u64,
) -> Option<Gap<'t>> {
    let mut best: Option<Gap<'t>> = None;
    let mut from = start_ns;
    let mut after = None;
    let mut consider = |ns: u64, after, before| {
        if ns > 0 && best.is_none_or(|b: Gap<'t>| ns > b.ns) {
            best = Some(Gap { ns, after, before });
        }
    };
    for entry in entries {
        consider(entry.cpu_start_ns.saturating_sub(from), after, Some(entry));
        from = from.max(entry.cpu_end_ns);
        after = Some(entry);
    }
    consider(end_ns.saturating_sub(from), after, None);
    best
}

impl Gap<'_> {
    /// "the CPU spent 3.2 ms between `a` at f:1 and `b` at f:2 outside any
    /// GPU call".
    pub fn describe(&self) -> String {
        let call = |e: &TraceEntry| format!("`{}` at {}", e.name, e.site);
        let place = match (self.after, self.before) {
            (Some(a), Some(b)) => format!("between {} and {}", call(a), call(b)),
            (Some(a), None) => format!("after {}", call(a)),
            (None, Some(b)) => format!("before {}", call(b)),
            (None, None) => "with no GPU call at all".into(),
        };
        format!(
            "the CPU spent {:.3} ms {place} outside any GPU call (a busy loop, a sleep, or work of your own that the trace does not see): no call waited for the GPU there",
            self.ns as f64 / 1e6
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu::{CallSite, OpKind};

    fn entry(name: &str, line: u32, start: u64, end: u64) -> TraceEntry {
        TraceEntry {
            seq: 0,
            op: OpKind::Launch,
            name: name.into(),
            stream: None,
            bytes: 0,
            site: CallSite {
                file: "server.rs",
                line,
                column: 1,
            },
            cpu_start_ns: start,
            cpu_end_ns: end,
            blocking: None,
            gpu: None,
            captured: false,
        }
    }

    /// A step whose CPU spun 40 ms between its host work and its launch.
    fn busy_step() -> Vec<TraceEntry> {
        vec![
            entry("host work", 97, 1_000, 1_501_000),
            entry("decode_step", 101, 41_501_000, 41_506_000),
            entry("copy pinned to device", 102, 41_506_000, 41_510_000),
        ]
    }

    #[test]
    fn the_longest_gap_is_found_with_the_calls_around_it() {
        let step = busy_step();
        let gap = longest_gap(&step, 0, 41_600_000).expect("a gap");
        assert_eq!(gap.ns, 40_000_000);
        assert_eq!(gap.after.map(|e| e.site.line), Some(97));
        assert_eq!(gap.before.map(|e| e.site.line), Some(101));
        assert_eq!(
            gap.describe(),
            "the CPU spent 40.000 ms between `host work` at server.rs:97:1 and `decode_step` at server.rs:101:1 outside any GPU call (a busy loop, a sleep, or work of your own that the trace does not see): no call waited for the GPU there"
        );
    }

    #[test]
    fn the_ends_count_and_calls_that_cover_everything_leave_no_gap() {
        let step = busy_step();
        let tail = longest_gap(&step[..1], 1_000, 90_000_000).expect("a tail");
        assert_eq!((tail.ns, tail.before), (88_499_000, None));
        assert!(tail.describe().contains("after `host work`"));
        let whole = [entry("event synchronize", 5, 0, 10)];
        assert_eq!(longest_gap(&whole, 0, 10), None);
    }
}
