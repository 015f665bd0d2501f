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

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// Removes the classes of this run, and the judge's scratch folders of
/// their submissions (named `NAME-HASH`, after the submissions).
fn forget(workspace: &Path, scratch: &Path) {
    let names: Vec<String> = walk_names(scratch);
    let grade = workspace.join("target/judge/grade");
    if let Ok(entries) = std::fs::read_dir(&grade) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let ours = name
                .rsplit_once('-')
                .is_some_and(|(n, _)| names.iter().any(|m| m == n));
            if ours {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let _ = std::fs::remove_dir_all(scratch);
}

/// The submissions of every class in `scratch`.
fn walk_names(scratch: &Path) -> Vec<String> {
    let classes = std::fs::read_dir(scratch).into_iter().flatten().flatten();
    classes
        .filter(|c| c.path().is_dir())
        .flat_map(|c| std::fs::read_dir(c.path()).into_iter().flatten().flatten())
        .map(|s| s.file_name().to_string_lossy().into_owned())
        .collect()
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

/// The machine's load average (1, 5, 15 minutes).
fn load() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The least of `values`.
fn least(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::INFINITY, f64::min)
}

/// Grades a class of `size` copies of the course's solutions named
/// `NAME-I`, with `flags`; the seconds of each exercise graded.
fn grade(workspace: &Path, scratch: &Path, name: &str, size: usize, flags: &[&str]) -> Vec<f64> {
    let class = scratch.join(name);
    let fresh = !class.exists();
    for i in (0..size).filter(|_| fresh) {
        let exercises = class.join(format!("{name}-{i}")).join("exercises");
        for solution in std::fs::read_dir(workspace.join("solutions")).expect("solutions") {
            let solution = solution.expect("a solution").path();
            if solution.join("Cargo.toml").is_file() {
                copy_crate(
                    &solution,
                    &exercises.join(solution.file_name().expect("a name")),
                );
            }
        }
    }
    let results = scratch.join(format!("{name}.json"));
    let status = Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("--root")
        .arg(workspace)
        .args(["grade", "--backend", "virtual", "--class"])
        .arg(&class)
        .arg("--out")
        .arg(&results)
        .args(flags)
        .env("CARGO_TARGET_DIR", workspace.join("target"))
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("the judge runs");
    assert!(status.success(), "grading `{name}` failed");
    let results: Value = serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    let mut seconds = Vec::new();
    for submission in results["submissions"].as_array().expect("submissions") {
        for exercise in submission["exercises"].as_array().expect("exercises") {
            assert_eq!(exercise["status"], "passed", "{name}: {exercise:#}");
            seconds.push(exercise["duration_s"].as_f64().expect("a duration"));
        }
    }
    seconds
}

/// Copies a crate's `Cargo.toml` and `src/`.
fn copy_crate(from: &Path, to: &Path) {
    let mut stack: Vec<PathBuf> = vec![PathBuf::from("src")];
    std::fs::create_dir_all(to).unwrap();
    std::fs::copy(from.join("Cargo.toml"), to.join("Cargo.toml")).unwrap();
    while let Some(relative) = stack.pop() {
        std::fs::create_dir_all(to.join(&relative)).unwrap();
        for entry in std::fs::read_dir(from.join(&relative)).unwrap() {
            let entry = entry.unwrap();
            let path = relative.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                std::fs::copy(entry.path(), to.join(&path)).unwrap();
            }
        }
    }
}

/// The median of `values` (the upper one of an even count).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The CPU model, its cores, and the kernel.
fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map(|m| m.trim_start_matches([' ', '\t', ':']).to_string())
        .unwrap_or_else(|| "an unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    format!("{model}, {cores} cores, Linux {}", kernel.trim())
}
