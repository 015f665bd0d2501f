//! What the sandbox costs per graded exercise: the course's own solutions,
//! submitted by a small class under fresh names each round (so every
//! exercise is built and run, as in a real class), graded on the virtual GPU
//! with the judge's cache warm, with the sandbox and without it
//! (`--no-sandbox`), the two alternating round by round; then each class
//! graded again (nothing to compile: the sandbox's share is larger). Prints
//! the time of an exercise (build and run, as the results record it) each
//! way, median and least, and the ratios. A benchmark, not a test: `cargo
//! bench -p judge --bench sandbox_cost [-- ROUNDS [SUBMISSIONS]]` (default
//! 3 rounds of 2). On a machine others share, the least is the steadier.

mod common;

use common::{forget, grade, least, load, machine, median};
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
        let modes = if round % 2 == 0 {
            [true, false]
        } else {
            [false, true]
        };
        for sandboxed in modes {
            let (name, flags): (String, &[&str]) = match sandboxed {
                true => (format!("on-{round}"), &[]),
                false => (format!("off-{round}"), &["--no-sandbox"]),
            };
            let built = grade(workspace, &scratch, &name, size, flags);
            let again = grade(workspace, &scratch, &name, size, flags);
            times.add(sandboxed, built, again);
        }
    }
    println!("load average at the end: {}", load());
    times.report();
    forget(workspace, &scratch);
}

/// The seconds of each exercise graded, by mode and kind.
#[derive(Default)]
struct Times {
    /// With the sandbox: built, graded again.
    on: (Vec<f64>, Vec<f64>),
    /// Without: built, graded again.
    off: (Vec<f64>, Vec<f64>),
}

impl Times {
    fn add(&mut self, sandboxed: bool, built: Vec<f64>, again: Vec<f64>) {
        let times = if sandboxed {
            &mut self.on
        } else {
            &mut self.off
        };
        times.0.extend(built);
        times.1.extend(again);
    }

    fn report(mut self) {
        for (what, on, off) in [
            ("built and run", &mut self.on.0, &mut self.off.0),
            (
                "graded again (no compiling)",
                &mut self.on.1,
                &mut self.off.1,
            ),
        ] {
            let (with, without) = ((median(on), least(on)), (median(off), least(off)));
            println!(
                "{what}, per exercise ({} each way): with the sandbox median {:.3} s, least {:.3} s; without median {:.3} s, least {:.3} s",
                on.len(),
                with.0,
                with.1,
                without.0,
                without.1
            );
            println!(
                "  ratio: median {:.3}, least {:.3} (target under 1.10)",
                with.0 / without.0,
                with.1 / without.1
            );
        }
    }
}
