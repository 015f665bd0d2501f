//! `--format gradescope`: Gradescope's `results.json`, one per submission.
//!
//! Top level: `score` (the points earned), `execution_time` (seconds, whole),
//! `output` (the summary a person reads), `output_format`,
//! `test_output_format` and `test_name_format` (all `text`), `visibility`
//! (`visible`), `stdout_visibility` (`hidden`: the judge's own log is for
//! the instructor), `extra_data` (`judge`, `submission`, `complete`,
//! `seed`, `decided` (where the verdicts were decided, as in the JSON
//! format), `sandbox` (as in the JSON format: `enabled`, `summary`,
//! `layers`) and `files`, each graded exercise's files with their SHA-256)
//! and `tests`. One test per check, in manifest then suite order: `name`
//! (`ID CHECK: TITLE`), `number` (`ID.N`), `score`, `max_score` (the check's
//! share of the exercise's points), `status` (`passed` or `failed`), `output`
//! (for a failure: expected, got, where, and what the code printed),
//! `output_format`, `tags` (the exercise folder and the chapter section),
//! `visibility` and `extra_data` (`exercise`, `check`, and the judge's own
//! `status`: `timed_out`, `panicked`, ...). An exercise whose checks did not
//! run (not started, not compiled, not graded yet) is one failed test worth
//! all its points, numbered `ID`, whose output says why.

use crate::grading::model::{ExerciseResult, check_status, round};
use crate::grading::{Grading, summary};
use crate::intake::GradedFile;
use crate::report::{CheckReport, ExerciseReport};
use crate::sandbox::LayersReport;
use serde::Serialize;
use std::collections::BTreeMap;

/// The most of the student's output shown in one test.
const OUTPUT_LIMIT: usize = 2000;

/// A `results.json`; its fields are documented above.
#[derive(Serialize)]
struct Results<'a> {
    score: f64,
    execution_time: u64,
    output: String,
    output_format: &'static str,
    test_output_format: &'static str,
    test_name_format: &'static str,
    visibility: &'static str,
    stdout_visibility: &'static str,
    extra_data: Extra<'a>,
    tests: Vec<Test>,
}

/// The top level's `extra_data`.
#[derive(Serialize)]
struct Extra<'a> {
    judge: &'static str,
    submission: String,
    complete: bool,
    seed: u64,
    decided: crate::report::Decided,
    sandbox: LayersReport,
    files: BTreeMap<String, &'a [GradedFile]>,
}

/// One Gradescope test.
#[derive(Serialize)]
struct Test {
    name: String,
    number: String,
    score: f64,
    max_score: f64,
    status: TestStatus,
    output: String,
    output_format: &'static str,
    tags: Vec<String>,
    visibility: &'static str,
    extra_data: TestExtra,
}

/// A test's `extra_data`.
#[derive(Serialize)]
struct TestExtra {
    exercise: u32,
    check: Option<String>,
    status: String,
}

/// A test's `status`, in Gradescope's words.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
enum TestStatus {
    /// Full marks for this test.
    Passed,
    /// Anything else.
    Failed,
}

/// The `results.json` of submission `current` of `grading`, as graded so far.
pub(crate) fn render(grading: &Grading, current: usize) -> String {
    let result = &grading.submissions[current];
    let mut output = format!(
        "Graded by the judge {} (sandbox: {}; verdicts {}; seed {}).\n",
        env!("CARGO_PKG_VERSION"),
        grading.sandbox.summary(),
        grading.decided.explain(),
        grading.seed
    );
    output.push_str(&summary::text(result));
    let results = Results {
        score: round(result.score()),
        execution_time: result.seconds().round() as u64,
        output,
        output_format: "text",
        test_output_format: "text",
        test_name_format: "text",
        visibility: "visible",
        stdout_visibility: "hidden",
        extra_data: Extra {
            judge: env!("CARGO_PKG_VERSION"),
            submission: result.submission.name.clone(),
            complete: result.complete,
            seed: grading.seed,
            decided: grading.decided,
            sandbox: grading.sandbox.report(),
            files: result
                .exercises
                .iter()
                .filter(|e| !e.files.is_empty())
                .map(|e| (e.exercise.dir_name(), e.files.as_slice()))
                .collect(),
        },
        tests: result.exercises.iter().flat_map(tests).collect(),
    };
    let mut text = serde_json::to_string_pretty(&results).expect("results serialize");
    text.push('\n');
    text
}

/// The tests of one exercise.
fn tests(result: &ExerciseResult) -> Vec<Test> {
    match result.checked() {
        Some(report) => report
            .checks()
            .iter()
            .enumerate()
            .map(|(n, check)| check_test(result, report, check, n + 1))
            .collect(),
        None => vec![unchecked_test(result)],
    }
}

/// The test of one check.
fn check_test(
    result: &ExerciseResult,
    report: &ExerciseReport,
    check: &CheckReport,
    number: usize,
) -> Test {
    let id = result.exercise.id;
    let max_score = report.check_points(check);
    let mut output = result.details(check).unwrap_or_default();
    let printed = result.output();
    let earned = report.earns(check);
    if !check.outcome.passed() && !printed.trim().is_empty() {
        output.push_str("\n\nwhat the code printed (during all the checks of this exercise):\n");
        output.push_str(&cut(&printed));
    }
    Test {
        name: format!("{id} {}: {}", check.info.name, check.info.title),
        number: format!("{id}.{number}"),
        score: if earned { round(max_score) } else { 0.0 },
        max_score: round(max_score),
        status: if earned {
            TestStatus::Passed
        } else {
            TestStatus::Failed
        },
        output,
        output_format: "text",
        tags: vec![result.exercise.dir_name(), check.info.section.clone()],
        visibility: "visible",
        extra_data: TestExtra {
            exercise: id,
            check: Some(check.info.name.clone()),
            status: check_status(&check.outcome),
        },
    }
}

/// The one test of an exercise whose checks did not run, worth all its points.
fn unchecked_test(result: &ExerciseResult) -> Test {
    let id = result.exercise.id;
    Test {
        name: format!("{id} {}", result.exercise.title),
        number: id.to_string(),
        score: 0.0,
        max_score: f64::from(result.exercise.points),
        status: TestStatus::Failed,
        output: cut(&result.message().unwrap_or_default()),
        output_format: "text",
        tags: vec![result.exercise.dir_name()],
        visibility: "visible",
        extra_data: TestExtra {
            exercise: id,
            check: None,
            status: result.status().name(),
        },
    }
}

/// `text` cut to [`OUTPUT_LIMIT`] bytes, saying so.
fn cut(text: &str) -> String {
    if text.len() <= OUTPUT_LIMIT {
        return text.to_string();
    }
    let end = (0..=OUTPUT_LIMIT)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    format!("{}\n[cut at {OUTPUT_LIMIT} bytes]", &text[..end])
}
