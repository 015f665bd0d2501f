//! What the benchmarks of the judge share: classes of the course's own
//! solutions graded under fresh names, their times per exercise, and the
//! machine they ran on.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Removes the classes of this run, and the judge's scratch folders of
/// their submissions (each names its submission in its `SUBMISSION` file).
pub(crate) fn forget(workspace: &Path, scratch: &Path) {
    let grade = workspace.join("target/judge/grade");
    let scratch = &scratch
        .canonicalize()
        .unwrap_or_else(|_| scratch.to_path_buf());
    if let Ok(entries) = std::fs::read_dir(&grade) {
        for entry in entries.flatten() {
            // A scratch folder's `SUBMISSION` names the submission it copies.
            let label =
                std::fs::read_to_string(entry.path().join("SUBMISSION")).unwrap_or_default();
            if Path::new(label.trim()).starts_with(scratch) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let _ = std::fs::remove_dir_all(scratch);
}

/// The machine's load average (1, 5, 15 minutes).
pub(crate) fn load() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The least of `values`.
pub(crate) fn least(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::INFINITY, f64::min)
}

/// Grades a class of `size` copies of the course's solutions named
/// `NAME-I`, with `flags`; the seconds of each exercise graded.
pub(crate) fn grade(
    workspace: &Path,
    scratch: &Path,
    name: &str,
    size: usize,
    flags: &[&str],
) -> Vec<f64> {
    grade_env(workspace, scratch, name, size, flags, &[])
}

/// [`grade`], with more variables `env` in the judge's environment.
pub(crate) fn grade_env(
    workspace: &Path,
    scratch: &Path,
    name: &str,
    size: usize,
    flags: &[&str],
    env: &[(&str, &str)],
) -> Vec<f64> {
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
        // A budget given: the judge does not measure the solutions first.
        .args(["--budget", "3600"])
        .env("CARGO_TARGET_DIR", workspace.join("target"))
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
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
pub(crate) fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The CPU model, its cores, and the kernel.
pub(crate) fn machine() -> String {
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
