//! `judge doctor` on this machine. The tests that expect no GPU skip
//! themselves on a machine with one; the snapshot is taken only where the
//! CUDA driver library is absent too (the usual CI machine or laptop), and
//! every layer of the sandbox is in force with the judge as root (the CI
//! machine: landlock ABI 7, seccomp, user namespaces).

use crate::support::Course;
use std::path::Path;
use std::process::Command;

/// `judge --root COURSE doctor ARGS` without colors, with `GPU_BACKEND`
/// unset (unlike [`Course::judge`], which picks the virtual GPU) and `env` set.
fn doctor(course: &Course, args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("--root")
        .arg(&course.root)
        .arg("doctor")
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("GPU_BACKEND")
        .envs(env.iter().copied())
        .output()
        .expect("the judge runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code().unwrap_or(-1), stdout)
}

/// Whether this machine has a usable GPU (the tests below expect none).
fn has_gpu() -> bool {
    let found = gpu::cuda_available().is_ok();
    if found {
        eprintln!("skipped: this machine has a GPU");
    }
    found
}

/// The report with the machine's paths and the toolchain's versions replaced.
fn redact(course: &Course, text: &str) -> String {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let text = course
        .redact(text)
        .replace(&workspace.display().to_string(), "[WORKSPACE]");
    let lines = text.lines().map(|line| {
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("ok"), Some(tool @ ("cargo" | "rustc"))) => {
                format!("  ok       {tool:<13} [VERSION] at [PATH]")
            }
            (Some("ok"), Some("files")) => redact_abi(line),
            _ => line.to_string(),
        }
    });
    lines.collect::<Vec<_>>().join("\n")
}

/// `line` with landlock's ABI (`landlock ABI 7`) as `landlock ABI [N]`.
fn redact_abi(line: &str) -> String {
    match line.split_once("landlock ABI ") {
        Some((before, after)) => {
            let rest = after.trim_start_matches(|c: char| c.is_ascii_digit());
            format!("{before}landlock ABI [N]{rest}")
        }
        None => line.to_string(),
    }
}

#[test]
fn without_a_gpu_the_virtual_gpu_is_used_and_that_is_fine() {
    if has_gpu() {
        return;
    }
    let course = Course::fixture();
    let (code, stdout) = doctor(&course, &[], &[]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("`judge run` will use the virtual GPU"),
        "{stdout}"
    );
    assert!(
        stdout.contains("every exercise works, timings are modelled"),
        "{stdout}"
    );
    if gpu::cuda_libraries().driver == gpu::CudaLibrary::Missing && all_layers_as_root(&stdout) {
        insta::assert_snapshot!(redact(&course, &stdout));
    }
}

/// The sandbox's section of a doctor's report: one line per layer.
fn sandbox_section(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with("the sandbox student code is built and run in:"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect()
}

/// Whether every layer is in force, with the judge as root.
fn all_layers_as_root(stdout: &str) -> bool {
    let section = sandbox_section(stdout);
    let all = section.iter().all(|l| l.starts_with("  ok "));
    let root = section
        .iter()
        .any(|l| l.contains("(the judge runs as root)"));
    if !(all && root) {
        eprintln!("no snapshot: not every layer of the sandbox is in force here, as root");
    }
    all && root
}

#[test]
fn the_doctor_lists_every_layer_of_the_sandbox() {
    let course = Course::fixture();
    let (code, stdout) = doctor(&course, &[], &[]);
    assert_eq!(code, 0, "{stdout}");
    let names: Vec<&str> = sandbox_section(&stdout)
        .iter()
        .map(|l| l.get(11..24).unwrap_or_default().trim())
        .collect();
    assert_eq!(names, crate::support::LAYERS, "{stdout}");
}

#[test]
fn asking_for_cuda_without_a_gpu_is_not_ready() {
    if has_gpu() {
        return;
    }
    let course = Course::fixture();
    let (code, stdout) = doctor(&course, &[], &[("GPU_BACKEND", "cuda")]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("`judge run` will fail"), "{stdout}");
    assert!(stdout.contains("`unset GPU_BACKEND`"), "{stdout}");
}

#[test]
fn a_backend_that_does_not_exist_is_not_ready() {
    let course = Course::fixture();
    let (code, stdout) = doctor(&course, &[], &[("GPU_BACKEND", "metal")]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("`GPU_BACKEND=metal` is not a backend"),
        "{stdout}"
    );
}

#[test]
fn without_rust_only_prebuilt_harnesses_can_run() {
    let course = Course::fixture();
    let no_rust = [
        ("CARGO", "/nonexistent/cargo"),
        ("RUSTC", "/nonexistent/rustc"),
    ];
    let (code, stdout) = doctor(&course, &[], &no_rust);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("missing  cargo         `/nonexistent/cargo` not found"),
        "{stdout}"
    );
    assert!(stdout.contains("https://rustup.rs"), "{stdout}");
    let (code, stdout) = doctor(&course, &["--prebuilt"], &no_rust);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("ready: the judge can run prebuilt harnesses here"),
        "{stdout}"
    );
}
