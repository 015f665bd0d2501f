//! What a launch costs the CPU, and how much of it is the `gpu` crate's own:
//! the table of [`gpu::measure_launches`] (an empty kernel launched through
//! cudarc's result layer, through cudarc's `launch_builder`, and through the
//! crate with its trace and race checker on and off, pair by pair in one
//! process), for each of [`RUNS`] runs one after the other, and the ratio
//! the book quotes, the crate with its checks on against the result layer,
//! run by run.

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

/// Rounds of 200 launches of each way in a run. A run's ratio is the median
/// of its rounds' ratios, which spread a tenth and more either side on the
/// H200 (the min–max in each table), so the median of 30 rounds moved from
/// run to run by as much as the gap between the ratio and its goal (all
/// 1.06x in one run, 1.08x–1.10x in the next, of the same launch code); the
/// median of four times as many moves about half as much.
pub const ROUNDS: usize = 120;

/// How many times the example measures the table, one run after the other
/// in one process: a machine's state moves between runs, so a claim about
/// the ratio holds only if it holds in each.
pub const RUNS: usize = 3;

/// Every run's table after `header` (the provenance lines), then the ratio
/// of the crate with its checks on to the result layer, run by run.
pub fn report(header: &str, runs: &[LaunchCosts]) -> String {
    let mut out = format!("{header}\n");
    for (i, costs) in runs.iter().enumerate() {
        let _ = writeln!(out, "## run {} of {}\n", i + 1, runs.len());
        out.push_str(&table(costs));
        out.push('\n');
    }
    let per_run: Vec<String> = runs
        .iter()
        .filter_map(|c| c.ratio(LaunchWay::Checked, LaunchWay::ResultLayer))
        .map(|spread| format!("{:.2}x", spread.median))
        .collect();
    if !per_run.is_empty() {
        let _ = writeln!(
            out,
            "crate, checks on / result layer, run by run: {}",
            per_run.join(", ")
        );
    }
    out
}

/// One run's table: the launch time of each way, then the ratios.
fn table(costs: &LaunchCosts) -> String {
    let mut out = String::new();
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
        let text = report("header\n", std::slice::from_ref(&costs));
        assert!(costs.per_launch(LaunchWay::ResultLayer).is_none(), "{text}");
        assert_eq!(costs.rounds(LaunchWay::Checked).len(), 3, "{text}");
        assert!(text.contains("CUDA only"), "{text}");
        assert!(text.contains("crate, checks on / checks off"), "{text}");
        assert!(!text.contains("/ result layer"), "{text}");
        assert!(text.contains("## run 1 of 1"), "{text}");
    }

    #[test]
    fn each_run_has_its_table_and_the_ratio_is_given_run_by_run() {
        let bench = LaunchBench {
            backend: Backend::Virtual,
            rounds: 3,
            launches: 20,
        };
        let runs: Vec<LaunchCosts> = (0..RUNS)
            .map(|_| measure_launches(&bench).unwrap())
            .collect();
        let text = report("header\n", &runs);
        assert!(text.starts_with("header\n\n## run 1 of 3\n"), "{text}");
        assert_eq!(text.matches("pair by pair").count(), 3, "{text}");
        assert!(text.contains("## run 3 of 3"), "{text}");
        // The virtual GPU has no result layer: no ratio to give per run.
        assert!(!text.contains("run by run"), "{text}");
    }
}
