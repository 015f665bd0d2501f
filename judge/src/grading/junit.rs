//! `--format junit`: JUnit XML (the Jenkins flavour, written by `quick-junit`).
//!
//! One `<testsuite>` per exercise of each submission, named
//! `SUBMISSION/ID-SLUG`, with properties `submission`, `exercise`, `status`,
//! `score`, `max_score`, `backend`, `seed` (the run's), `decided` (where
//! the verdicts were decided, as in the JSON format), `sandbox` (the
//! layers' summary) and `sandbox.LAYER` for each layer (`in force: HOW` or
//! `not in force: WHY`), and `file:PATH` (its SHA-256) for each file
//! graded; one `<testcase>` per check (its
//! `classname` is `SUBMISSION.ID-SLUG`, its properties `score` and
//! `max_score`). A check that failed or panicked is a `<failure>`; one that
//! timed out or crashed is an `<error>`; one not run, a `<skipped>`. Each
//! carries a one-line `message`, a `type` (the check's status) and the
//! details (expected, got, where) as text. An exercise whose checks did not
//! run has one test case instead: `compile` (an `<error>` with the
//! compiler's messages), `harness` (an `<error>`), `not_started` or
//! `over_budget` (a `<failure>`) or `pending` (a `<skipped>`). What the student's code
//! printed is the suite's `<system-out>`.

use crate::grading::Grading;
use crate::grading::model::{
    ExerciseResult, Status, SubmissionResult, check_status, check_summary, round,
};
use crate::report::CheckReport;
use crate::sandbox::Layers;
use judge_harness::Outcome;
use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use std::time::Duration;

/// The results so far, as a JUnit XML report.
pub(crate) fn render(grading: &Grading) -> String {
    let mut report = Report::new("judge grade");
    let seconds: f64 = grading
        .submissions
        .iter()
        .map(SubmissionResult::seconds)
        .sum();
    report.set_time(Duration::from_secs_f64(seconds));
    for submission in &grading.submissions {
        for exercise in &submission.exercises {
            let mut suite = suite(&submission.submission.name, exercise);
            suite.add_properties(run_properties(grading, exercise));
            if let Some(note) = &submission.submission.note {
                suite.add_property(Property::new("note", note.as_str()));
            }
            report.add_test_suite(suite);
        }
    }
    report.to_string().expect("a JUnit report serializes")
}

/// The test suite of one exercise of one submission.
fn suite(submission: &str, result: &ExerciseResult) -> TestSuite {
    let folder = result.exercise.dir_name();
    let mut suite = TestSuite::new(format!("{submission}/{folder}"));
    suite.set_time(Duration::from_secs_f64(result.seconds));
    let backend = result.report().map_or("", |r| r.backend.as_str());
    suite.add_properties([
        Property::new("submission", submission),
        Property::new("exercise", result.exercise.id.to_string()),
        Property::new("status", result.status().name()),
        Property::new("score", round(result.score()).to_string()),
        Property::new("max_score", result.exercise.points.to_string()),
        Property::new("backend", backend),
    ]);
    let classname = format!("{submission}.{folder}");
    match result.checked() {
        Some(report) => {
            for check in report.checks() {
                let points = (report.check_points(check), report.earns(check));
                suite.add_test_case(case(result, check, points, &classname));
            }
            let output = result.output();
            if !output.trim().is_empty() {
                suite.set_system_out(output);
            }
        }
        None => {
            suite.add_test_case(unchecked(result, &classname));
        }
    }
    suite
}

/// What a suite records about the run: its seed, where its verdicts were
/// decided, its sandbox, and the files graded.
fn run_properties(grading: &Grading, result: &ExerciseResult) -> Vec<Property> {
    let sandbox: &Layers = &grading.sandbox;
    let decided = serde_json::to_value(grading.decided).expect("a unit variant");
    let mut properties = vec![
        Property::new("seed", grading.seed.to_string()),
        Property::new("decided", decided.as_str().unwrap_or_default()),
        Property::new("sandbox", sandbox.summary()),
    ];
    for layer in sandbox.rows() {
        let state = if layer.in_force { "in force: " } else { "" };
        properties.push(Property::new(
            format!("sandbox.{}", layer.name),
            format!("{state}{}", layer.detail),
        ));
    }
    for file in &result.files {
        properties.push(Property::new(
            format!("file:{}", file.path),
            file.sha256.as_str(),
        ));
    }
    properties
}

/// The test case of one check, worth `max_score` points (`earned` or not).
fn case(
    result: &ExerciseResult,
    check: &CheckReport,
    (max_score, earned): (f64, bool),
    classname: &str,
) -> TestCase {
    let mut status = match &check.outcome {
        Outcome::Passed => TestCaseStatus::success(),
        Outcome::Failed { .. } | Outcome::Panicked { .. } => {
            TestCaseStatus::non_success(NonSuccessKind::Failure)
        }
        Outcome::TimedOut { .. } | Outcome::Crashed { .. } | Outcome::JudgeFailed { .. } => {
            TestCaseStatus::non_success(NonSuccessKind::Error)
        }
        Outcome::NotRun => TestCaseStatus::skipped(),
    };
    if let Some(summary) = check_summary(check) {
        status
            .set_message(summary)
            .set_type(check_status(&check.outcome));
        if !matches!(check.outcome, Outcome::NotRun) {
            status.set_description(result.details(check).unwrap_or_default());
        }
    }
    let mut case = TestCase::new(check.info.name.as_str(), status);
    let score = if earned { max_score } else { 0.0 };
    if check.outcome.passed() && !earned {
        case.set_system_out(result.details(check).unwrap_or_default());
    }
    case.set_classname(classname)
        .set_time(Duration::from_secs_f64(check.seconds.max(0.0)))
        .add_property(Property::new("score", round(score).to_string()))
        .add_property(Property::new("max_score", round(max_score).to_string()));
    case
}

/// The one test case of an exercise whose checks did not run.
fn unchecked(result: &ExerciseResult, classname: &str) -> TestCase {
    let message = result.message().unwrap_or_default();
    let (name, mut status) = match result.status() {
        Status::CompileError => (
            "compile",
            TestCaseStatus::non_success(NonSuccessKind::Error),
        ),
        Status::HarnessFailure => (
            "harness",
            TestCaseStatus::non_success(NonSuccessKind::Error),
        ),
        Status::NotStarted => (
            "not_started",
            TestCaseStatus::non_success(NonSuccessKind::Failure),
        ),
        Status::OverBudget => (
            "over_budget",
            TestCaseStatus::non_success(NonSuccessKind::Failure),
        ),
        _ => ("pending", TestCaseStatus::skipped()),
    };
    let first_line = message
        .lines()
        .next()
        .unwrap_or_default()
        .trim_end_matches(':')
        .to_string();
    status
        .set_message(first_line)
        .set_type(result.status().name());
    if message.contains('\n') {
        status.set_description(message.as_str());
    }
    let mut case = TestCase::new(name, status);
    case.set_classname(classname)
        .add_property(Property::new("score", "0"))
        .add_property(Property::new(
            "max_score",
            result.exercise.points.to_string(),
        ));
    case
}
