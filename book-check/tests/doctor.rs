//! The book shows `judge doctor`'s report on a machine without a GPU
//! (`chapters/generated/judge-doctor.txt`, included by `setup.md`). This
//! test runs the real command and fails when the included file is stale:
//! when the report, with its machine-specific parts redacted (the versions
//! and paths of cargo and rustc, the repository's folder), differs from the
//! file.
//!
//! To write the file again from this machine's report:
//!
//! ```text
//! BOOK_CHECK_WRITE=1 cargo test -p book-check --test doctor
//! ```
//!
//! On a machine with a CUDA driver the report is a different one (the
//! driver, NVRTC and GPU lines say `ok`), so the test checks nothing there
//! and says so.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The command whose output the file holds, as its header names it.
const COMMAND: &str = "cargo run -p judge -- doctor";
/// The included file, relative to the repository.
const FILE: &str = "chapters/generated/judge-doctor.txt";

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("the repository")
}

/// `judge doctor`'s report on this machine, run as the book says, with
/// nothing in the environment that changes it.
fn report(repo: &Path) -> String {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["run", "--quiet", "-p", "judge", "--", "doctor"])
        .current_dir(repo)
        .env_remove("GPU_BACKEND")
        .env_remove("GPU_CALIBRATION")
        .env("NO_COLOR", "1")
        .output()
        .expect("cargo runs");
    assert!(
        out.status.code().is_some(),
        "`{COMMAND}` did not exit: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the report is UTF-8")
}

/// `text` with the repository's folder written `<repo>` and the home
/// folder `~`, as the book shows paths.
fn shorten(text: &str, repo: &Path) -> String {
    let mut text = text.replace(&repo.display().to_string(), "<repo>");
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        text = text.replace(&*home.to_string_lossy(), "~");
    }
    text
}

/// The report without what differs from machine to machine: the versions
/// and locations of cargo and rustc, and any absolute path left.
fn redact(report: &str) -> String {
    report
        .lines()
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                [mark, tool @ ("cargo" | "rustc"), ..] => {
                    format!("  {mark} {tool} <version and path>")
                }
                _ => line.trim_end().to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The file's report: everything after its header (the lines up to the
/// first empty one).
fn body(file: &str) -> &str {
    file.split_once("\n\n").map_or("", |(_, body)| body)
}

/// Whether the report is the one of a machine with a CUDA driver.
fn has_cuda(report: &str) -> bool {
    report.lines().any(|l| {
        l.split_whitespace()
            .collect::<Vec<_>>()
            .starts_with(&["ok", "CUDA"])
    })
}

#[test]
fn the_doctor_report_in_the_book_is_current() {
    let repo = repository();
    let fresh = shorten(&report(&repo), &repo);
    if has_cuda(&fresh) {
        eprintln!(
            "this machine has a CUDA driver; the book shows the report without one, so {FILE} is not checked here"
        );
        return;
    }
    let path = repo.join(FILE);
    assert!(
        fresh.starts_with("judge doctor:"),
        "`{COMMAND}` printed no report (does the judge build?): {fresh:?}"
    );
    if std::env::var_os("BOOK_CHECK_WRITE").is_some() {
        let header = format!(
            "command: {COMMAND}\nmachine: {} {}, no NVIDIA driver\ndate:    {}\n\n",
            std::env::consts::OS,
            std::env::consts::ARCH,
            jiff::Timestamp::now().strftime("%Y-%m-%d")
        );
        fs_err::write(&path, header + &fresh).expect("the file is written");
        return;
    }
    let file = fs_err::read_to_string(&path).expect("the included report exists");
    assert!(
        file.starts_with(&format!("command: {COMMAND}\n")),
        "{FILE} must start with `command: {COMMAND}`"
    );
    assert_eq!(
        redact(body(&file)),
        redact(&fresh),
        "{FILE} is stale: `judge doctor` now reports something else; write it again with `BOOK_CHECK_WRITE=1 cargo test -p book-check --test doctor`"
    );
}

#[test]
fn redaction_keeps_what_the_book_is_about() {
    let a = "  ok       cargo         cargo 1.95.0 (f2d3ce0bd 2026-03-21) at ~/.cargo/bin/cargo\n  ok       course        4 exercises in <repo>\n";
    let b = "  ok       cargo         cargo 1.99.0 (0000000 2027-01-01) at /usr/bin/cargo\n  ok       course        1 exercises in <repo>\n";
    let (a, b) = (redact(a), redact(b));
    assert!(a.starts_with("  ok cargo <version and path>\n"), "{a}");
    assert_ne!(
        a, b,
        "a change in the exercise count must not be redacted away"
    );
    assert_eq!(body("command: x\ndate: y\n\nreport\n"), "report\n");
    assert!(has_cuda("  ok       CUDA driver   libcuda.so 580"));
    assert!(!has_cuda(
        "  missing  CUDA driver   libcuda.so does not load"
    ));
}
