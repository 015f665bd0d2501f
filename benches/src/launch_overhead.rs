//! What a launch costs the CPU, and how much of it is the `gpu` crate's own:
//! the table of [`gpu::measure_launches`] (an empty kernel launched through
//! cudarc's result layer, through cudarc's `launch_builder`, and through the
//! crate with its trace and race checker on and off, pair by pair in one
//! process).

use gpu::{LaunchCosts, LaunchWay, Spread};
use std::fmt::Write as _;

/// The ratios the table shows: a way against its yardstick, round by round.
const RATIOS: [(LaunchWay, LaunchWay, &str); 4] = [
    (
        LaunchWay::LaunchBuilder,
        LaunchWay::ResultLayer,
        "launch_builder / result layer",
    ),
    (
        LaunchWay::Checked,
        LaunchWay::ResultLayer,
        "crate, checks on / result layer",
    ),
    (
        LaunchWay::Unchecked,
        LaunchWay::ResultLayer,
        "crate, checks off / result layer",
    ),
    (
        LaunchWay::Checked,
        LaunchWay::Unchecked,
        "crate, checks on / checks off",
    ),
];

/// The table of `costs`, after `header` (the provenance lines).
pub fn report(header: &str, costs: &LaunchCosts) -> String {
    let mut out = format!("{header}\n");
    let (rounds, launches) = (costs.rounds, costs.launches);
    let _ = writeln!(
        out,
        "CPU time of one launch of an empty kernel (spin(0), one thread), µs:\n\
         the median of {rounds} rounds' medians of {launches} launches (min–max of the round medians)\n"
    );
    for way in LaunchWay::ALL {
        let figure = match costs.per_launch(way) {
            Some(spread) => spread_text(spread, ""),
            None if way.cuda_only() => "CUDA only: not run on the virtual GPU".into(),
            None => "not run".into(),
        };
        let _ = writeln!(out, "  {:<38} {figure}", way.label());
    }
    let ratios: Vec<_> = RATIOS
        .iter()
        .filter_map(|&(way, base, label)| Some((label, costs.ratio(way, base)?)))
        .collect();
    let _ = writeln!(
        out,
        "\npair by pair, round against round: median ratio (min–max of the {rounds} rounds)\n"
    );
    for (label, spread) in ratios {
        let _ = writeln!(out, "  {label:<38} {}", spread_text(spread, "x"));
    }
    out
}

/// `4.25 (4.20–4.31)`, each figure followed by `unit`.
fn spread_text(s: Spread, unit: &str) -> String {
    format!(
        "{:.2}{unit} ({:.2}{unit}–{:.2}{unit})",
        s.median, s.min, s.max
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu::{Backend, LaunchBench, measure_launches};

    #[test]
    fn the_virtual_gpu_runs_the_crates_two_ways_only() {
        let bench = LaunchBench {
            backend: Backend::Virtual,
            rounds: 3,
            launches: 20,
        };
        let costs = measure_launches(&bench).unwrap();
        let text = report("header\n", &costs);
        assert!(costs.per_launch(LaunchWay::ResultLayer).is_none(), "{text}");
        assert_eq!(costs.rounds(LaunchWay::Checked).len(), 3, "{text}");
        assert!(text.contains("CUDA only"), "{text}");
        assert!(text.contains("crate, checks on / checks off"), "{text}");
        assert!(!text.contains("/ result layer"), "{text}");
    }
}
