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
