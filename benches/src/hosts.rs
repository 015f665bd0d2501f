//! The CPU side of the virtual GPU's cost table as a range, not a point.
//!
//! What a driver call costs the CPU (a launch, a copy's submission, a call
//! that finds nothing to wait for, a wake-up) is a property of the host the
//! GPU sits in, not of the GPU: the same H200 measured 0.31 to 4.5 times the
//! built-in table's figures on different hosts. `gpu/calibration/h200-hosts.json`
//! keeps each host's CPU-side costs; [`spread`] is the range they span
//! against the built-in table, and [`at`] a table with every CPU-side cost at
//! one end of it, so that a prediction can be asked whether its answer holds
//! on every host seen (the widgets' tests ask it of every prediction).

use gpu::Calibration;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The hosts' file, built in.
const HOSTS_JSON: &str = include_str!("../../gpu/calibration/h200-hosts.json");

/// The entries of the cost table that the host's CPU sets.
pub const CPU_SIDE: [&str; 14] = [
    "launch_ns",
    "graph_launch_ns",
    "begin_capture_ns",
    "end_capture_ns",
    "instantiate_node_ns",
    "copy_submit_ns",
    "api_call_ns",
    "wake_ns",
    "segment_alloc_ns",
    "segment_free_ns",
    "pool_alloc_ns",
    "pinned_alloc_ns",
    "pinned_free_ns",
    "create_ns",
];

/// One host's measurement of the CPU side.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Host {
    /// Where, when and how it was measured.
    pub source: String,
    /// Its CPU-side costs, ns, by entry (a host may have only some).
    pub costs: BTreeMap<String, u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[allow(dead_code)] // the file's own explanation, for its reader
    about: String,
    hosts: Vec<Host>,
}

/// Every host seen, the built-in table's first.
pub fn hosts() -> Vec<Host> {
    let file: File =
        serde_json::from_str(HOSTS_JSON).expect("gpu/calibration/h200-hosts.json parses");
    file.hosts
}

/// One end of the range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Every CPU-side cost at the least any host measured.
    Fast,
    /// Every CPU-side cost at the most any host measured.
    Slow,
}

/// Each CPU-side entry's range over the hosts, ns: `(least, most)`.
pub fn spread() -> BTreeMap<&'static str, (u64, u64)> {
    let hosts = hosts();
    CPU_SIDE
        .iter()
        .map(|&entry| {
            let seen = hosts.iter().filter_map(|h| h.costs.get(entry).copied());
            let least = seen
                .clone()
                .min()
                .expect("the built-in host has every entry");
            (
                entry,
                (
                    least,
                    seen.max().expect("the built-in host has every entry"),
                ),
            )
        })
        .collect()
}

/// The built-in table with every CPU-side cost at `end` of its [`spread`];
/// the GPU side as it is.
pub fn at(end: End) -> Calibration {
    let mut table = serde_json::to_value(Calibration::default()).expect("a table serializes");
    for (entry, (least, most)) in spread() {
        let ns = match end {
            End::Fast => least,
            End::Slow => most,
        };
        table[entry] = ns.into();
    }
    table["source"] =
        format!("the built-in table, its CPU side at the {end:?} end of the hosts seen").into();
    serde_json::from_value(table).expect("the table parses with its CPU side changed")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_table_is_the_first_host_and_inside_the_range() {
        let hosts = hosts();
        let table = serde_json::to_value(Calibration::default()).unwrap();
        assert_eq!(hosts[0].source, Calibration::default().source);
        for (entry, (least, most)) in spread() {
            let built_in = table[entry].as_u64().unwrap();
            assert_eq!(hosts[0].costs[entry], built_in, "`{entry}`");
            assert!(least <= built_in && built_in <= most, "`{entry}`");
        }
    }

    #[test]
    fn the_ends_change_only_the_cpu_side() {
        let (fast, slow) = (at(End::Fast), at(End::Slow));
        assert_eq!(fast.launch_ns, 2558);
        assert_eq!(slow.copy_submit_ns, 23012);
        assert!(fast.api_call_ns < slow.api_call_ns);
        let base = Calibration::default();
        assert_eq!(
            (fast.kernel_min_ns, fast.hbm_bytes_per_ns),
            (base.kernel_min_ns, base.hbm_bytes_per_ns)
        );
    }
}
