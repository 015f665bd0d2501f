//! What deciding outside the student's process costs: the course's
//! solutions, submitted by a small class under fresh names each round (so
//! that every exercise is built and run, as in a real class), graded on
//! the virtual GPU with the judge's cache warm, the verdicts decided in the
//! judge's checker with the student's code in an agent (the default) and
//! in the student's process (`--in-process`, the way before), the two
//! alternating round by round; then each class graded again (since a
//! submission's scratch folder goes when its grading ends, its crates are
//! built again from the shared cache, without its dependencies). Then a
//! learner's warm `judge run 105`, each way: with nothing changed, and
//! after a one-line change of the crate (a fresh build of it).
//! Prints the times of an exercise each way, median and least, and the
//! ratios (target: under 1.25 for a graded exercise). A benchmark, not a
//! test: `cargo bench -p judge --bench decided_cost [-- ROUNDS [SUBMISSIONS]]`
//! (default 3 rounds of 2). On a machine others share, the least is the
//! steadier.

mod common;

use common::{forget, grade, least, load, machine, median};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

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
        "{rounds} rounds of {size} submissions of the course's solutions, virtual GPU, warm cache, sandbox on"
    );
    grade(workspace, &scratch, "warm-up", 1, &[]);
    grade(workspace, &scratch, "warm-up-in", 1, &["--in-process"]);
    println!("load average at the start: {}", load());
    let mut outside = (Vec::new(), Vec::new());
    let mut inside = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let modes = if round % 2 == 0 {
            [true, false]
        } else {
            [false, true]
        };
        for out in modes {
            let (name, flags): (String, &[&str]) = match out {
                true => (format!("out-{round}"), &[]),
                false => (format!("in-{round}"), &["--in-process"]),
            };
            let built = grade(workspace, &scratch, &name, size, flags);
            let again = grade(workspace, &scratch, &name, size, flags);
            let times = if out { &mut outside } else { &mut inside };
            times.0.extend(built);
            times.1.extend(again);
        }
    }
    report("graded, built and run", &mut outside.0, &mut inside.0);
    report(
        "graded again (the submission's crates built again from the shared cache: its scratch goes when its grading ends)",
        &mut outside.1,
        &mut inside.1,
    );
    warm_runs(workspace, rounds.max(3));
    println!("load average at the end: {}", load());
    forget(workspace, &scratch);
}

/// Prints the median and least of each way, and their ratios.
fn report(what: &str, outside: &mut [f64], inside: &mut [f64]) {
    let (out, inn) = (
        (median(outside), least(outside)),
        (median(inside), least(inside)),
    );
    println!(
        "{what}, per exercise ({} each way): decided outside median {:.3} s, least {:.3} s; in the student's process median {:.3} s, least {:.3} s",
        outside.len(),
        out.0,
        out.1,
        inn.0,
        inn.1
    );
    println!(
        "  ratio outside / inside: median {:.3}, least {:.3} (target under 1.25)",
        out.0 / inn.0,
        out.1 / inn.1
    );
}

/// A learner's warm `judge run 105`, `rounds` times each way, with nothing
/// changed and after a one-line change of the crate under test.
fn warm_runs(workspace: &Path, rounds: usize) {
    let lib = workspace.join("exercises/105-time-it/src/lib.rs");
    let original = std::fs::read_to_string(&lib).expect("the starter of 105");
    let mut times: [(Vec<f64>, Vec<f64>); 2] = Default::default();
    for way in [0, 1] {
        let flags: &[&str] = if way == 0 { &[] } else { &["--in-process"] };
        judge_run(workspace, flags);
        for i in 0..rounds {
            times[way].0.push(judge_run(workspace, flags));
            std::fs::write(&lib, format!("{original}// bench edit {i}\n")).expect("an edit");
            times[way].1.push(judge_run(workspace, flags));
            std::fs::write(&lib, &original).expect("the starter back");
        }
    }
    judge_run(workspace, &[]);
    let [outside, inside] = &mut times;
    for (what, out, inn) in [
        (
            "warm `judge run 105`, nothing changed",
            &mut outside.0,
            &mut inside.0,
        ),
        (
            "warm `judge run 105`, one line changed",
            &mut outside.1,
            &mut inside.1,
        ),
    ] {
        report(what, out, inn);
    }
}

/// Seconds of one `judge run 105` of the learner's crate (the starter).
fn judge_run(workspace: &Path, flags: &[&str]) -> f64 {
    let started = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("--root")
        .arg(workspace)
        .args(["run", "105", "--backend", "virtual"])
        .args(flags)
        .env("CARGO_TARGET_DIR", workspace.join("target"))
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("the judge runs");
    assert!(
        status.code() == Some(1),
        "`judge run 105` of the starter: {status}"
    );
    started.elapsed().as_secs_f64()
}
