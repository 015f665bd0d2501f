//! What a launch costs the CPU, and how much of it is the `gpu` crate's own:
//! the table of [`gpu::measure_launches`] (an empty kernel launched through
//! cudarc's result layer, through cudarc's `launch_builder`, and through the
//! crate with its trace and race checker on and off, pair by pair in one
//! process), for each of [`RUNS`] runs one after the other, and the ratio
//! the book quotes, the crate with its checks on against the result layer,
//! run by run; and the same launch made through the link the judge's checker
//! serves a learner's process over ([`Link`]), with what each call costs the
//! calling process in one process and through the link.

use gpu::remote::bench::CallTimes;
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

/// The argument on which the example runs as the calling side of the link.
pub const CALLING_SIDE: &str = "--calling-side-of-the-link";

/// One run: the four ways, and where it was measured the link.
#[derive(Clone, Debug)]
pub struct Run {
    /// The four ways, round against round.
    pub costs: LaunchCosts,
    /// The calls timed in one process, and through the link from a second.
    pub link: Option<LinkRun>,
}

/// The same calls timed in the measuring process and in a second process
/// whose device is a proxy of the first's.
#[derive(Clone, Debug)]
pub struct LinkRun {
    /// On a stream of the measuring process's own device.
    pub one_process: CallTimes,
    /// On a proxy of that stream, from the second process.
    pub through_link: CallTimes,
}

/// Every run's table after `header` (the provenance lines), then the ratio
/// of the crate with its checks on to the result layer, and of the crate
/// through the link to the result layer, run by run.
pub fn report(header: &str, runs: &[Run]) -> String {
    let mut out = format!("{header}\n");
    for (i, run) in runs.iter().enumerate() {
        let _ = writeln!(out, "## run {} of {}\n", i + 1, runs.len());
        out.push_str(&table(&run.costs));
        if let Some(link) = &run.link {
            out.push('\n');
            out.push_str(&link_table(&run.costs, link));
        }
        out.push('\n');
    }
    let through: Vec<String> = runs
        .iter()
        .filter_map(|r| link_ratio(&r.costs, r.link.as_ref()?))
        .map(|ratio| format!("{ratio:.2}x"))
        .collect();
    if !through.is_empty() {
        let _ = writeln!(
            out,
            "crate through the link, checks on / result layer, run by run: {}",
            through.join(", ")
        );
    }
    let runs: Vec<LaunchCosts> = runs.iter().map(|r| r.costs.clone()).collect();
    let runs = &runs[..];
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

/// Which of a [`CallTimes`]' calls a row shows.
type Calls = fn(&CallTimes) -> &[u64];

/// The median of the link's round medians over the result layer's, in one run.
fn link_ratio(costs: &LaunchCosts, link: &LinkRun) -> Option<f64> {
    let through = Spread::of(&link.through_link.launch_rounds_us)?.median;
    Some(through / costs.per_launch(LaunchWay::ResultLayer)?.median)
}

/// The link's part of a run: the launch through it against the result
/// layer, and what each call costs the calling process, one process
/// against through the link.
fn link_table(costs: &LaunchCosts, link: &LinkRun) -> String {
    let mut out = String::new();
    let rounds = link.through_link.launch_rounds_us.len();
    let _ = writeln!(
        out,
        "through the link: a second process (the learner's, as the judge runs it) launches on a\n\
         proxy of a stream of this one, which makes each call as the judge's checker does, µs\n"
    );
    if let Some(spread) = Spread::of(&link.through_link.launch_rounds_us) {
        let label = "crate through the link, checks on";
        let _ = writeln!(
            out,
            "  {label:<38} {} (median of {rounds} rounds' medians)",
            spread_text(spread, "")
        );
    }
    if let Some(ratio) = link_ratio(costs, link) {
        let label = "crate through the link / result layer";
        let _ = writeln!(
            out,
            "  {label:<38} {ratio:.2}x (the two medians of this run)"
        );
    }
    let _ = writeln!(
        out,
        "\nwhat one call costs the process that makes it, µs: median / p99 of every timed call\n\n\
         {:<40} {:<18} through the link",
        "", "one process"
    );
    let calls: [(&str, Calls); 3] = [
        ("launch, spin(0) (posted)", |t| &t.launches_ns),
        ("query (waits for the answer)", |t| &t.queries_ns),
        ("now (the clock: the trip alone)", |t| &t.nows_ns),
    ];
    for (label, of) in calls {
        let cell = |t: &CallTimes| match (
            CallTimes::quantile_us(of(t), 0.5),
            CallTimes::quantile_us(of(t), 0.99),
        ) {
            (Some(median), Some(p99)) => format!("{median:.2} / {p99:.2}"),
            _ => "not run".into(),
        };
        let _ = writeln!(
            out,
            "  {label:<38} {:<18} {}",
            cell(&link.one_process),
            cell(&link.through_link)
        );
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
        let run = Run {
            costs: costs.clone(),
            link: None,
        };
        let text = report("header\n", std::slice::from_ref(&run));
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
        let runs: Vec<Run> = (0..RUNS)
            .map(|_| Run {
                costs: measure_launches(&bench).unwrap(),
                link: None,
            })
            .collect();
        let text = report("header\n", &runs);
        assert!(text.starts_with("header\n\n## run 1 of 3\n"), "{text}");
        assert_eq!(text.matches("pair by pair").count(), 3, "{text}");
        assert!(text.contains("## run 3 of 3"), "{text}");
        // The virtual GPU has no result layer: no ratio to give per run.
        assert!(!text.contains("run by run"), "{text}");
    }
}
