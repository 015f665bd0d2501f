//! What the sandbox costs per graded exercise: the course's own solutions,
//! submitted by a small class under fresh names each round (so every
//! exercise is built and run, as in a real class), graded on the virtual GPU
//! with the judge's cache warm three ways, in turn round by round: without
//! the sandbox (`--no-sandbox`); with the sandbox as it was before its
//! control groups and its disk account (`JUDGE_SANDBOX_OMIT=cgroup,disk`:
//! "before"); and with every layer ("after"); then each class graded again
//! (nothing to compile: the sandbox's share is larger). Prints the time of
//! an exercise (build and run, as the results record it) each way, median
//! and least, and the ratios. A benchmark, not a test: `cargo bench -p
//! judge --bench sandbox_cost [-- ROUNDS [SUBMISSIONS]]` (default 3 rounds
//! of 2). On a machine others share, the least is the steadier.

mod common;

use common::{forget, grade, grade_env, least, load, machine, median};
use std::path::Path;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (rounds, size) = (
        args.first().copied().unwrap_or(3),
        args.get(1).copied().unwrap_or(2),
    );
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace");
    // A folder of this run's own: the judge keeps a scratch folder per
    // submission path, which a later run must not find built.
    let run = format!(
        "{}-{}",
        std::process::id(),
        jiff::Timestamp::now().as_second()
    );
    let scratch = workspace.join("target/judge/bench").join(run);
    println!("machine: {}", machine());
    println!(
        "date: {} (UTC)",
        jiff::Timestamp::now().strftime("%Y-%m-%d %H:%M")
    );
    println!(
        "{rounds} rounds of {size} submissions of the course's solutions, virtual GPU, warm cache"
    );
    grade(workspace, &scratch, "warm-up", 1, &[]);
    grade(workspace, &scratch, "warm-up-off", 1, &["--no-sandbox"]);
    println!("load average at the start: {}", load());
    let mut times = Times::default();
    for round in 0..rounds {
        for mode in Mode::ALL.iter().cycle().skip(round).take(Mode::ALL.len()) {
            let name = format!("{}-{round}", mode.name());
            let (flags, env) = mode.settings();
            let built = grade_env(workspace, &scratch, &name, size, flags, env);
            let again = grade_env(workspace, &scratch, &name, size, flags, env);
            times.add(*mode, built, again);
        }
    }
    println!("load average at the end: {}", load());
    times.report();
    forget(workspace, &scratch);
}

/// A way of grading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `--no-sandbox`.
    Off,
    /// The sandbox without its control groups and disk account.
    Before,
    /// The sandbox with every layer.
    After,
}

impl Mode {
    const ALL: [Mode; 3] = [Mode::Off, Mode::Before, Mode::After];

    fn name(self) -> &'static str {
        match self {
            Mode::Off => "off",
            Mode::Before => "before",
            Mode::After => "after",
        }
    }

    /// The judge's flags and environment.
    fn settings(
        self,
    ) -> (
        &'static [&'static str],
        &'static [(&'static str, &'static str)],
    ) {
        match self {
            Mode::Off => (&["--no-sandbox"], &[]),
            Mode::Before => (&[], &[("JUDGE_SANDBOX_OMIT", "cgroup,disk")]),
            Mode::After => (&[], &[]),
        }
    }
}

/// The seconds of each exercise graded, by mode: built, graded again.
#[derive(Default)]
struct Times {
    off: (Vec<f64>, Vec<f64>),
    before: (Vec<f64>, Vec<f64>),
    after: (Vec<f64>, Vec<f64>),
}

impl Times {
    fn add(&mut self, mode: Mode, built: Vec<f64>, again: Vec<f64>) {
        let times = match mode {
            Mode::Off => &mut self.off,
            Mode::Before => &mut self.before,
            Mode::After => &mut self.after,
        };
        times.0.extend(built);
        times.1.extend(again);
    }

    fn report(mut self) {
        let kinds = [
            ("built and run", 0usize),
            ("graded again (crates built again from the shared cache)", 1),
        ];
        for (what, kind) in kinds {
            let pick = |t: &mut (Vec<f64>, Vec<f64>)| -> (f64, f64, usize) {
                let values = if kind == 0 { &mut t.0 } else { &mut t.1 };
                (median(values), least(values), values.len())
            };
            let (off, before, after) = (
                pick(&mut self.off),
                pick(&mut self.before),
                pick(&mut self.after),
            );
            println!(
                "{what}, per exercise ({} each way): median / least: off {:.3} / {:.3} s, before {:.3} / {:.3} s, after {:.3} / {:.3} s",
                after.2, off.0, off.1, before.0, before.1, after.0, after.1
            );
            println!(
                "  sandbox cost, ratio to off: before median {:.3}, least {:.3}; after median {:.3}, least {:.3}; after to before: median {:.3}, least {:.3}",
                before.0 / off.0,
                before.1 / off.1,
                after.0 / off.0,
                after.1 / off.1,
                after.0 / before.0,
                after.1 / before.1
            );
        }
    }
}
