//! What grading found, as data: a submission's exercises, each pending,
//! not started or judged. The output formats (`json`, `junit`,
//! `gradescope`) and the human summary all read this model.

use crate::intake::GradedFile;
use crate::manifest::Exercise;
use crate::report::{CheckReport, ExerciseReport, Stage, describe};
use crate::submission::Submission;
use crate::text::{plain, relative};
use judge_harness::Outcome;
use serde::Serialize;

/// Where an exercise of a submission stands, as every results format names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    /// Not graded yet.
    Pending,
    /// The submission has no folder for the exercise.
    NotStarted,
    /// The crate does not compile.
    CompileError,
    /// The harness could not run its checks.
    HarnessFailure,
    /// Every check passed.
    Passed,
    /// Some check did not pass.
    Failed,
    /// Not graded: the submission had used its budget on the exercises before.
    OverBudget,
}

impl Status {
    /// The name the results formats use (`not_started`): serde's.
    pub(crate) fn name(self) -> String {
        serde_name(&self)
    }
}

/// The name serde gives a unit variant (`compile_error`).
fn serde_name(value: &impl Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        other => unreachable!("a unit variant serializes as a string, not {other:?}"),
    }
}

/// Where one exercise of a submission stands.
#[derive(Clone, Debug)]
pub(crate) enum Verdict {
    /// Not graded yet (a run that stopped early leaves this).
    Pending,
    /// The submission has no folder for the exercise.
    NotStarted,
    /// Built and run (or not compiled): the judge's report.
    Judged(Box<ExerciseReport>),
    /// Not graded: the submission's builds and checks had used its budget.
    OverBudget {
        /// The budget, in seconds.
        budget_s: f64,
        /// What the exercises before used of it.
        used_s: f64,
    },
}

/// One exercise of one submission.
#[derive(Clone, Debug)]
pub(crate) struct ExerciseResult {
    /// The exercise, from the course's manifest.
    pub(crate) exercise: Exercise,
    /// Where it stands.
    pub(crate) verdict: Verdict,
    /// Wall time to build and run it, in seconds.
    pub(crate) seconds: f64,
    /// The files graded (the judge's manifest and the student's sources),
    /// with their SHA-256.
    pub(crate) files: Vec<GradedFile>,
}

/// One submission, exercise by exercise in manifest order.
#[derive(Clone, Debug)]
pub(crate) struct SubmissionResult {
    /// Whose.
    pub(crate) submission: Submission,
    /// Every exercise of the course.
    pub(crate) exercises: Vec<ExerciseResult>,
    /// Whether every exercise has been graded.
    pub(crate) complete: bool,
    /// The wall time its builds and checks could take in all, in seconds.
    pub(crate) budget_s: Option<f64>,
    /// The folders of its `exercises/` that are no exercise of the course
    /// (a misnamed crate is otherwise silently not started), each with the
    /// exercise it may have meant.
    pub(crate) unknown_folders: Vec<(String, Option<String>)>,
    /// Why its own results file (Gradescope's, one per student of a class)
    /// could not be written, and what to do; `None` once it is written.
    pub(crate) results_error: Option<String>,
}

impl SubmissionResult {
    /// Every exercise of `exercises` pending.
    pub(crate) fn pending(submission: Submission, exercises: &[Exercise]) -> Self {
        let exercises = exercises
            .iter()
            .map(|e| ExerciseResult {
                exercise: e.clone(),
                verdict: Verdict::Pending,
                seconds: 0.0,
                files: Vec::new(),
            })
            .collect();
        Self {
            submission,
            exercises,
            complete: false,
            budget_s: None,
            unknown_folders: Vec::new(),
            results_error: None,
        }
    }

    /// Points earned.
    pub(crate) fn score(&self) -> f64 {
        self.exercises.iter().map(ExerciseResult::score).sum()
    }

    /// Points possible.
    pub(crate) fn max_score(&self) -> u32 {
        self.exercises.iter().map(|e| e.exercise.points).sum()
    }

    /// Wall time of the exercises graded so far, in seconds.
    pub(crate) fn seconds(&self) -> f64 {
        self.exercises.iter().map(|e| e.seconds).sum()
    }
}

impl ExerciseResult {
    /// The judge's report, when it was judged.
    pub(crate) fn report(&self) -> Option<&ExerciseReport> {
        match &self.verdict {
            Verdict::Judged(report) => Some(report),
            _ => None,
        }
    }

    /// The judge's report, when the checks ran.
    pub(crate) fn checked(&self) -> Option<&ExerciseReport> {
        self.report()
            .filter(|r| matches!(r.stage, Stage::Checked { .. }))
    }

    /// Points earned.
    pub(crate) fn score(&self) -> f64 {
        self.report().map_or(0.0, ExerciseReport::score)
    }

    /// What the student's code printed, as plain text.
    pub(crate) fn output(&self) -> String {
        self.report()
            .map(|r| self.relative(&plain(&r.output)))
            .unwrap_or_default()
    }

    /// Everything about a check's failure, as plain text; for a check that
    /// passed without earning its points, why; `None` when it earned them.
    pub(crate) fn details(&self, check: &CheckReport) -> Option<String> {
        if let Some(report) = self.report()
            && check.outcome.passed()
        {
            let waiting = report.waiting_for(check);
            return (!waiting.is_empty()).then(|| unearned(&waiting));
        }
        check_details(check).map(|text| self.relative(&text))
    }

    /// `text` with paths to copies of the crate written from `exercises/`.
    fn relative(&self, text: &str) -> String {
        relative(text, &self.exercise.dir_name())
    }

    /// Where it stands.
    pub(crate) fn status(&self) -> Status {
        match &self.verdict {
            Verdict::Pending => Status::Pending,
            Verdict::NotStarted => Status::NotStarted,
            Verdict::OverBudget { .. } => Status::OverBudget,
            Verdict::Judged(report) => match &report.stage {
                Stage::CompileError { .. } => Status::CompileError,
                Stage::HarnessFailure { .. } => Status::HarnessFailure,
                Stage::Checked { .. } if report.passed() => Status::Passed,
                Stage::Checked { .. } => Status::Failed,
            },
        }
    }

    /// Why there are no checks to show (pending, not started, not compiled,
    /// the harness failed), as plain text; `None` when the checks ran.
    pub(crate) fn message(&self) -> Option<String> {
        let folder = format!("exercises/{}", self.exercise.dir_name());
        match &self.verdict {
            Verdict::Pending => {
                Some("not graded: the grading run stopped before this exercise".into())
            }
            Verdict::NotStarted => Some(format!("not started: the submission has no `{folder}`")),
            Verdict::OverBudget { budget_s, used_s } => Some(format!(
                "not graded: the exercises before this one used {used_s:.0} s of the submission's budget of {budget_s:.0} s for building and checking all its exercises (`judge grade --budget` sets it)"
            )),
            Verdict::Judged(report) => match &report.stage {
                Stage::CompileError { log } => Some(format!(
                    "`{folder}` does not compile:\n{}",
                    self.relative(&plain(log))
                )),
                Stage::HarnessFailure { reason } => {
                    Some(format!("the checks could not run: {}", plain(reason)))
                }
                Stage::Checked { .. } => None,
            },
        }
    }

    /// A short description for a person: `passed`, `1 of 3 checks passed`, `does not compile`.
    pub(crate) fn describe(&self) -> String {
        match (self.status(), self.report()) {
            (Status::Failed, Some(report)) => {
                let checks = report.checks();
                let passed = checks.iter().filter(|c| c.outcome.passed()).count();
                format!("{passed} of {} checks passed", checks.len())
            }
            (Status::CompileError, _) => "does not compile".into(),
            (Status::HarnessFailure, _) => "the checks could not run".into(),
            (status, _) => status.name().replace('_', " "),
        }
    }
}

/// A check outcome's status (`passed`, `failed`, `panicked`, `timed_out`,
/// `crashed` or `not_run`): the `status` tag [`Outcome`] serializes with, so
/// that the results formats and the harness protocol name it alike.
pub(crate) fn check_status(outcome: &Outcome) -> String {
    match serde_json::to_value(outcome) {
        Ok(serde_json::Value::Object(mut fields)) => match fields.remove("status") {
            Some(serde_json::Value::String(status)) => status,
            other => unreachable!("an outcome is tagged with its status, not {other:?}"),
        },
        other => unreachable!("an outcome serializes as an object, not {other:?}"),
    }
}

/// What went wrong in a check, in one line (`None` when it passed).
pub(crate) fn check_summary(check: &CheckReport) -> Option<String> {
    Some(match &check.outcome {
        Outcome::Passed => return None,
        Outcome::Failed {
            expected, actual, ..
        } => format!("expected {expected}, got {actual}"),
        Outcome::Panicked { message, .. } => format!("panicked: {message}"),
        Outcome::TimedOut { limit_s } => {
            format!("did not finish within the exercise's {limit_s:.0} s limit")
        }
        Outcome::Crashed { how } => format!("the process died during this check: {how}"),
        Outcome::NotRun => "not run: the time limit had passed".into(),
        Outcome::JudgeFailed { message, .. } => crate::report::judge_failed(message),
    })
}

/// Why a check that passed earns no points: the checks it requires that
/// did not pass.
pub(crate) fn unearned(waiting: &[&str]) -> String {
    let names: Vec<String> = waiting.iter().map(|n| format!("`{n}`")).collect();
    format!(
        "passed, but it earns its points only once {} passes too: the untouched starter passes this check already",
        names.join(" and ")
    )
}

/// Everything about a check's failure, as plain text: expected, got, where,
/// detail, and the chapter section that explains it (`None` when it passed).
fn check_details(check: &CheckReport) -> Option<String> {
    if check.outcome.passed() {
        return None;
    }
    let text = format!(
        "{}\nexplained in: {}",
        describe(&check.outcome),
        check.info.section
    );
    Some(plain(&text))
}

/// Points rounded to four decimals, for the machine formats.
pub(crate) fn round(points: f64) -> f64 {
    (points * 1e4).round() / 1e4
}

/// Points for a person: `10`, `2.5`, `3.33`.
pub(crate) fn points(points: f64) -> String {
    let text = format!("{points:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_named_by_serde() {
        assert_eq!(Status::NotStarted.name(), "not_started");
        assert_eq!(Status::HarnessFailure.name(), "harness_failure");
        let outcome = Outcome::TimedOut { limit_s: 1.0 };
        assert_eq!(check_status(&outcome), "timed_out");
        assert_eq!(check_status(&Outcome::NotRun), "not_run");
    }

    #[test]
    fn writes_points_for_people_and_machines() {
        assert_eq!(
            [points(10.0), points(2.5), points(10.0 / 3.0), points(0.0)],
            ["10", "2.5", "3.33", "0"]
        );
        assert_eq!(round(10.0 / 3.0), 3.3333);
    }
}
