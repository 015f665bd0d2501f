//! The Gradescope autograder of `docs/gradescope/`: `run_autograder` against
//! a fake `/autograder` layout in a temporary folder (the fixture course as
//! its `source/`, a student's repository as its `submission/`), with this
//! build's judge; `setup.sh` (which installs Rust) only as far as bash
//! reads it.

use crate::formats::{gradescope_shape, read_json};
use crate::support::Course;
use std::path::Path;
use std::process::Command;

/// `docs/gradescope/NAME`.
fn script(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs/gradescope")
        .join(name)
}

#[test]
fn run_autograder_grades_the_submission_into_results_json() {
    let course = Course::fixture_with(&[901, 902]);
    let autograder = course.class.join("autograder");
    std::fs::create_dir_all(&autograder).unwrap();
    std::fs::rename(&course.root, autograder.join("source")).unwrap();
    let student = course.submit("student", &[]);
    let exercises = autograder.join("source/exercises");
    crate::support::copy_marked(
        &exercises.join("901-passes"),
        &student.join("exercises/901-passes"),
        &[],
    );
    std::fs::rename(&student, autograder.join("submission")).unwrap();
    let out = Command::new("bash")
        .arg(script("run_autograder"))
        .env("AUTOGRADER_ROOT", &autograder)
        .env("JUDGE", env!("CARGO_BIN_EXE_judge"))
        .env("GPU_BACKEND", "virtual")
        .env(
            "CARGO_TARGET_DIR",
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"),
        )
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "{out:?}");
    let results = read_json(&autograder.join("results/results.json"));
    gradescope_shape(&results, 10.0, 20.0);
    assert_eq!(results["extra_data"]["submission"], "submission");
    assert_eq!(results["extra_data"]["complete"], true);
    assert_eq!(results["extra_data"]["sandbox"]["enabled"], true);
    let output = results["output"].as_str().unwrap();
    assert!(output.starts_with("Graded by the judge "), "{output}");
    assert!(output.contains("sandbox: files, "), "{output}");
}

#[test]
fn setup_sh_is_valid_bash() {
    for name in ["setup.sh", "run_autograder"] {
        let status = Command::new("bash")
            .arg("-n")
            .arg(script(name))
            .status()
            .unwrap();
        assert!(status.success(), "`bash -n docs/gradescope/{name}`");
    }
}

/// The autograder zip of the real course, made by its recipe
/// (`make_autograder`), unpacked as Gradescope does, loads as a workspace
/// (`cargo metadata --locked`) and builds the judge. A zip that leaves out a
/// workspace member (`widgets/`, as the recipe of old did) does not load:
/// cargo names the missing member.
#[test]
fn the_autograder_zip_of_the_course_builds_the_judge() {
    let dir = tempfile::tempdir().unwrap();
    let unpacked = |name: &str, leave_out: &str| {
        let zip = dir.path().join(format!("{name}.zip"));
        let made = Command::new(script("make_autograder"))
            .arg(&zip)
            .env("MAKE_AUTOGRADER_LEAVE_OUT", leave_out)
            .output()
            .expect("the recipe runs");
        assert!(made.status.success(), "{made:?}");
        let source = dir.path().join(name);
        let unzip = Command::new("unzip")
            .args(["-q", "-d"])
            .arg(&source)
            .arg(&zip)
            .status()
            .expect("unzip runs");
        assert!(unzip.success());
        source
    };
    let cargo = |source: &Path, args: &[&str]| {
        Command::new(env!("CARGO"))
            .args(args)
            .current_dir(source)
            .env(
                "CARGO_TARGET_DIR",
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/gradescope-image"),
            )
            .output()
            .expect("cargo runs")
    };
    let source = unpacked("source", "");
    assert!(source.join("setup.sh").is_file() && source.join("run_autograder").is_file());
    let metadata = cargo(&source, &["metadata", "--locked", "--format-version", "1"]);
    assert!(metadata.status.success(), "{metadata:?}");
    let built = cargo(
        &source,
        &[
            "build",
            "--release",
            "--locked",
            "--offline",
            "--quiet",
            "-p",
            "judge",
        ],
    );
    assert!(
        built.status.success(),
        "the judge builds from the zip: {built:?}"
    );
    let broken = unpacked("without-widgets", "widgets");
    let metadata = cargo(&broken, &["metadata", "--locked", "--format-version", "1"]);
    assert!(
        !metadata.status.success(),
        "a zip without a member loads: {metadata:?}"
    );
    let stderr = String::from_utf8_lossy(&metadata.stderr);
    assert!(stderr.contains("widgets"), "{stderr}");
}
