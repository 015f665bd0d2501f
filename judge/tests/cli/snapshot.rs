//! Snapshot checks (`judge_harness::snapshot!`): a mismatch is the check's
//! failure with insta's diff in the output, and nothing the learner sets in
//! the environment (`INSTA_UPDATE=always`, `INSTA_FORCE_PASS=1`, any other
//! insta variable, `CI=false`) makes a failing snapshot pass or writes a
//! snapshot file, in `judge run` and in `judge grade` alike.

use crate::support::{Course, Output, arg, copy_dir};
use std::path::{Path, PathBuf};

/// A copy of the fixture course whose exercise 902 (a wrong `add`) has the
/// snapshot suite of `tests/fixtures/snapshot_suite`.
fn course_with_a_snapshot_check() -> Course {
    let course = Course::fixture_with(&[902]);
    let suite = course.root.join("judge/checks/ex902");
    std::fs::remove_dir_all(&suite).unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/snapshot_suite"),
        &suite,
    );
    course
}

/// Every insta variable a learner could set to accept or write a snapshot,
/// with `elsewhere` for the paths.
fn learners_insta_env(elsewhere: &Path) -> Vec<(&'static str, PathBuf)> {
    let set = |key, value: &str| (key, PathBuf::from(value));
    vec![
        set("INSTA_UPDATE", "always"),
        set("INSTA_FORCE_PASS", "1"),
        set("INSTA_FORCE_UPDATE", "1"),
        set("INSTA_FORCE_UPDATE_SNAPSHOTS", "1"),
        set("INSTA_OUTPUT", "none"),
        set("INSTA_DIFF_TOOL", "true"),
        set("CI", "false"),
        ("INSTA_WORKSPACE_ROOT", elsewhere.to_path_buf()),
        ("INSTA_PENDING_DIR", elsewhere.join("pending")),
        (
            "INSTA_SNAPSHOT_REFERENCES_FILE",
            elsewhere.join("references"),
        ),
    ]
}

/// `judge ARGS` with the learner's insta variables.
fn judge_with_insta_env(course: &Course, args: &[&str]) -> Output {
    let elsewhere = course.root.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let env = learners_insta_env(&elsewhere);
    let env: Vec<(&str, &Path)> = env.iter().map(|(k, v)| (*k, v.as_path())).collect();
    course.judge_with(args, &env)
}

/// Fails unless the snapshot is as the fixture has it and no snapshot file
/// appeared anywhere in the course (or in its `elsewhere/`).
#[track_caller]
fn nothing_written(course: &Course) {
    let snap = course.root.join("judge/checks/ex902/snapshots/sum.snap");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/snapshot_suite/snapshots/sum.snap");
    assert_eq!(
        std::fs::read_to_string(&snap).unwrap(),
        std::fs::read_to_string(fixture).unwrap(),
        "the snapshot was rewritten"
    );
    let written: Vec<PathBuf> = walk(&course.root)
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".snap") && *p != snap)
        .chain(walk(&course.root.join("elsewhere")))
        .collect();
    assert!(
        written.is_empty(),
        "snapshot files were written: {written:?}"
    );
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .flat_map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => walk(&e.path()),
            _ => vec![e.path()],
        })
        .collect()
}

#[test]
fn the_solution_matches_its_snapshot() {
    let course = course_with_a_snapshot_check();
    let out = course.judge(&["run", "902", "--solution"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("✓ sum_matches_its_snapshot"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_learners_insta_env_cannot_pass_or_write_a_snapshot_in_run() {
    let course = course_with_a_snapshot_check();
    let out = judge_with_insta_env(&course, &["run", "902"]);
    assert_eq!(out.code, 1, "{out:?}");
    for line in [
        "✗ sum_matches_its_snapshot",
        "expected: the sum of the reference: the judge's snapshot `sum`",
        "│ Snapshot file: ex902/snapshots/sum.snap",
        "got:      something else: insta's diff of yours (`+new results`) against the reference (`-old snapshot`) is in the output below",
        "│ -old snapshot",
        "│ +new results",
        "add(2, 3) = -1",
    ] {
        assert!(
            course.redact(&out.stdout).contains(line),
            "no `{line}` in:\n{}",
            out.stdout
        );
    }
    nothing_written(&course);
}

#[test]
fn a_learners_insta_env_cannot_pass_or_write_a_snapshot_in_grade() {
    let course = course_with_a_snapshot_check();
    let eve = course.submit("eve", &[("902-wrong-answer", "902-wrong-answer")]);
    let results = course.root.join("eve.json");
    let args = ["grade", "--submission", arg(&eve), "--out", arg(&results)];
    let out = judge_with_insta_env(&course, &args);
    assert_eq!(out.code, 0, "{out:?}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    let check = &json["submissions"][0]["exercises"][0]["checks"][0];
    assert_eq!(
        (check["name"].as_str(), check["status"].as_str()),
        (Some("sum_matches_its_snapshot"), Some("failed")),
        "{json:#}"
    );
    std::fs::remove_file(&results).unwrap();
    nothing_written(&course);
}
