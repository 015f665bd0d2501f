//! What the sandbox costs per graded exercise: the course's own solutions,
//! submitted by a small class under fresh names each round (so every
//! exercise is built and run, as in a real class), graded on the virtual GPU
//! with the judge's cache warm, with the sandbox and without it
//! (`--no-sandbox`), the two alternating round by round. Prints the median
//! time of an exercise (build and run, as the results record it) each way,
//! and the ratio. A benchmark, not a test: `cargo bench -p judge --bench
//! sandbox_cost [-- ROUNDS [SUBMISSIONS]]` (default 3 rounds of 2).

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
    let scratch = workspace.join("target/judge/bench");
    let _ = std::fs::remove_dir_all(&scratch);
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
    let (mut on, mut off) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let sandboxed = |times: &mut Vec<f64>| {
            times.extend(grade(
                workspace,
                &scratch,
                &format!("on-{round}"),
                size,
                &[],
            ))
        };
        let open = |times: &mut Vec<f64>| {
            let name = format!("off-{round}");
            times.extend(grade(workspace, &scratch, &name, size, &["--no-sandbox"]))
        };
        if round % 2 == 0 {
            sandboxed(&mut on);
            open(&mut off);
        } else {
            open(&mut off);
            sandboxed(&mut on);
        }
    }
    let (with, without) = (median(&mut on), median(&mut off));
    println!(
        "per graded exercise (median of {}): with the sandbox {with:.2} s, without {without:.2} s",
        on.len()
    );
    let ratio = with / without;
    println!(
        "ratio: {ratio:.3} (the sandbox costs {:+.1} %; target under 10 %)",
        (ratio - 1.0) * 100.0
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

/// Grades a class of `size` copies of the course's solutions named
/// `NAME-I`, with `flags`; the seconds of each exercise graded.
fn grade(workspace: &Path, scratch: &Path, name: &str, size: usize, flags: &[&str]) -> Vec<f64> {
    let class = scratch.join(name);
    for i in 0..size {
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
