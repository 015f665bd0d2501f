//! `judge build`: harnesses built on one machine and run on another, without
//! cargo, giving the same scores as building on the spot.

use crate::formats::{assert_keys, read_json};
use crate::support::{Course, arg};
use std::path::Path;

#[test]
fn grading_prebuilt_harnesses_scores_like_building_them() {
    let course = Course::fixture_with(&[901, 903]);
    let variant = course.root.join("judge/variants/901/off_by_one.rs");
    std::fs::create_dir_all(variant.parent().unwrap()).unwrap();
    std::fs::write(&variant, OFF_BY_ONE).unwrap();
    // 901 holds the crate that aborts on zero: 3 of the 4 weights pass, 7.5 points.
    let ada = course.submit(
        "ada",
        &[
            ("901-passes", "907-aborts"),
            ("903-compile-error", "903-compile-error"),
        ],
    );
    let bin = course.root.join("bin");
    let out = course.judge(&["build", "--out", arg(&bin), "--submission", arg(&ada)]);
    assert_eq!(out.code, 0, "{out:?}");
    insta::assert_snapshot!(course.redact(&out.stdout), @"built 7 harnesses into `[COURSE]/bin`; 2 did not compile (see `index.json` there)");
    index_lists_every_harness(&bin);

    let no_cargo = [("CARGO", Path::new("/nonexistent/cargo"))];
    let prebuilt = course.root.join("prebuilt.json");
    let out = course.judge_with(
        &[
            "grade",
            "--submission",
            arg(&ada),
            "--prebuilt",
            arg(&bin),
            "--out",
            arg(&prebuilt),
        ],
        &no_cargo,
    );
    assert_eq!(out.code, 0, "runs without cargo: {out:?}");
    let built_here = course.root.join("built-here.json");
    let out = course.judge(&[
        "grade",
        "--submission",
        arg(&ada),
        "--out",
        arg(&built_here),
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let in_process = course.judge_with(
        &[
            "grade",
            "--submission",
            arg(&ada),
            "--prebuilt",
            arg(&bin),
            "--in-process",
            "--out",
            arg(&course.root.join("in-process.json")),
        ],
        &no_cargo,
    );
    assert!(
        in_process
            .stderr
            .contains("--in-process (a harness is built only"),
        "a run in the learner's process names the build that makes its harness: {in_process:?}"
    );
    let (prebuilt, built_here) = (scores(&prebuilt), scores(&built_here));
    assert_eq!(prebuilt, built_here);
    assert_eq!(prebuilt[0].1, "passed crashed passed 7.5");
    assert!(
        prebuilt[1].1.starts_with(
            "compile_error 0.0 `exercises/903-compile-error` does not compile:\nerror[E0277]"
        ),
        "{prebuilt:?}"
    );

    let out = course.judge_with(
        &["run", "901", "--solution", "--prebuilt", arg(&bin)],
        &no_cargo,
    );
    assert_eq!(
        out.code, 0,
        "`run --prebuilt` finds the solution's harness by its name: {out:?}"
    );
}

/// A known-wrong variant of 901's solution, as `judge verify` reads them.
const OFF_BY_ONE: &str = "//! mistake: adds one too many
//! fails: adds_small_numbers, adds_zero
//! says: 5
/// Adds, plus one.
pub fn add(a: i32, b: i32) -> i32 {
    a + b + 1
}
";

/// Each exercise's id, and its check statuses and score (or status, score and message).
fn scores(file: &Path) -> Vec<(u64, String)> {
    let results = read_json(file);
    let exercises = results["submissions"][0]["exercises"]
        .as_array()
        .unwrap()
        .clone();
    exercises
        .iter()
        .map(|e| {
            let checks: Vec<&str> = e["checks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["status"].as_str().unwrap())
                .collect();
            let summary = match checks.is_empty() {
                true => format!(
                    "{} {} {}",
                    e["status"].as_str().unwrap(),
                    e["score"],
                    e["message"].as_str().unwrap()
                ),
                false => format!("{} {}", checks.join(" "), e["score"]),
            };
            (
                e["id"].as_u64().unwrap(),
                summary.lines().take(2).collect::<Vec<_>>().join("\n"),
            )
        })
        .collect()
}

/// `index.json` lists the course's harnesses, then the submission's, each
/// built (an executable file) or with its compiler messages.
fn index_lists_every_harness(bin: &Path) {
    let index = read_json(&bin.join("index.json"));
    assert_keys(&index, "format judge harnesses");
    let listed: Vec<String> = index["harnesses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            format!(
                "{} {} {}",
                h["name"].as_str().unwrap(),
                h["status"].as_str().unwrap(),
                h["path"].as_str().unwrap_or("-")
            )
        })
        .collect();
    // Without `--in-process`, no harness: every run the folder serves is
    // decided outside the learner's process, by a checker and an agent.
    let expected = [
        "checker-901 built checker-901",
        "agent-901-exercise built agent-901-exercise",
        "agent-901-solution built agent-901-solution",
        "agent-901-variant-off-by-one built agent-901-variant-off-by-one",
        "checker-903 built checker-903",
        "agent-903-exercise compile_error -",
        "agent-903-solution built agent-903-solution",
        "agent-901-submission built ada/agent-901-submission",
        "agent-903-submission compile_error -",
    ];
    assert_eq!(listed, expected);
    for built in index["harnesses"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["path"].as_str())
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(bin.join(built))
            .unwrap()
            .permissions()
            .mode();
        assert!(mode & 0o111 != 0, "`{built}` is executable");
    }
    let failed = &index["harnesses"][8];
    assert_eq!(
        (failed["submission"].as_str(), failed["role"].as_str()),
        (Some("ada"), Some("submission"))
    );
    assert!(
        failed["log"]
            .as_str()
            .unwrap()
            .contains("--> exercises/903-compile-error/src/lib.rs:4:7"),
        "{failed}"
    );
}

#[test]
fn a_harness_missing_from_the_index_is_a_clear_error() {
    let course = Course::fixture_with(&[901]);
    let ada = course.submit("ada", &[("901-passes", "901-passes")]);
    let (bin, results) = (course.root.join("bin"), course.root.join("ada.json"));
    let args = [
        "grade",
        "--submission",
        arg(&ada),
        "--prebuilt",
        arg(&bin),
        "--out",
        arg(&results),
        "--budget",
        "600",
    ];
    let out = course.judge(&args);
    assert_eq!(out.code, 3);
    assert!(
        !results.exists(),
        "nothing is written before the index is read"
    );
    assert!(
        course
            .redact(&out.stderr)
            .contains("no `index.json` in `[COURSE]/bin`; build the harnesses there first"),
        "{out:?}"
    );
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(
        bin.join("index.json"),
        r#"{"format": 1, "judge": "0.1.0", "harnesses": []}"#,
    )
    .unwrap();
    let out = course.judge(&args);
    assert_eq!(out.code, 3);
    assert!(
        out.stderr
            .contains("has no harness `agent-901-submission` of submission `ada`"),
        "{out:?}"
    );
    let out = course.judge(&["build", "--out", arg(&bin), "--shard", "1/2"]);
    assert_eq!(out.code, 2, "a shard needs a class: {out:?}");
}
