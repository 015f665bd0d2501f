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

/// What a learner could set to accept or write a snapshot: each entry on
/// its own passes a failing snapshot or writes one when the judge does not
/// control insta's environment; the last sets every variable at once, with
/// paths in `elsewhere`.
fn learners_insta_envs(elsewhere: &Path) -> Vec<Vec<(&'static str, PathBuf)>> {
    let set = |key, value: &str| (key, PathBuf::from(value));
    let mut every = vec![
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
    ];
    let alone = |pairs: &[(&'static str, &str)]| pairs.iter().map(|&(k, v)| set(k, v)).collect();
    let mut envs: Vec<Vec<(&'static str, PathBuf)>> = vec![
        alone(&[("INSTA_UPDATE", "always"), ("CI", "false")]),
        alone(&[("INSTA_FORCE_PASS", "1")]),
        alone(&[("INSTA_FORCE_UPDATE", "1")]),
        alone(&[("INSTA_UPDATE", "new"), ("CI", "false")]),
        alone(&[("INSTA_OUTPUT", "none")]),
    ];
    envs.push(std::mem::take(&mut every));
    envs
}

/// `judge ARGS` once per environment of [`learners_insta_envs`], each
/// output checked with `check` and the course with [`nothing_written`].
fn judge_with_insta_envs(course: &Course, args: &[&str], check: impl Fn(&Output)) {
    let elsewhere = course.root.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    for env in learners_insta_envs(&elsewhere) {
        let env: Vec<(&str, &Path)> = env.iter().map(|(k, v)| (*k, v.as_path())).collect();
        let out = course.judge_with(args, &env);
        check(&out);
        nothing_written(course, &env);
    }
}

/// Fails unless the snapshot is as the fixture has it and no snapshot file
/// appeared anywhere in the course (or in its `elsewhere/`), after a run
/// with the learner's `env`.
#[track_caller]
fn nothing_written(course: &Course, env: &[(&str, &Path)]) {
    let snap = course.root.join("judge/checks/ex902/snapshots/sum.snap");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/snapshot_suite/snapshots/sum.snap");
    assert_eq!(
        std::fs::read_to_string(&snap).unwrap(),
        std::fs::read_to_string(fixture).unwrap(),
        "the snapshot was rewritten with {env:?}"
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
    judge_with_insta_envs(&course, &["run", "902"], |out| {
        assert_eq!(out.code, 1, "{out:?}");
        for line in [
            "✗ sum_matches_its_snapshot",
            "expected: the sum of the reference: the judge's snapshot `sum`",
            "got:      something else: insta's diff of yours (`+new results`) against the reference (`-old snapshot`) is in the output below",
            "│ Snapshot file: ex902/snapshots/sum.snap",
            "│ -old snapshot",
            "│ +new results",
            "add(2, 3) = -1",
        ] {
            assert!(out.stdout.contains(line), "no `{line}` in:\n{}", out.stdout);
        }
    });
}

#[test]
fn a_learners_insta_env_cannot_pass_or_write_a_snapshot_in_grade() {
    let course = course_with_a_snapshot_check();
    let eve = course.submit("eve", &[("902-wrong-answer", "902-wrong-answer")]);
    let results = course.class.join("eve.json");
    let args = ["grade", "--submission", arg(&eve), "--out", arg(&results)];
    judge_with_insta_envs(&course, &args, |out| {
        assert_eq!(out.code, 0, "{out:?}");
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
        let check = &json["submissions"][0]["exercises"][0]["checks"][0];
        assert_eq!(
            (check["name"].as_str(), check["status"].as_str()),
            (Some("sum_matches_its_snapshot"), Some("failed")),
            "{json:#}"
        );
    });
}
