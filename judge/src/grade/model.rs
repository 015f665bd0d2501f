//! What grading found, as data: a submission's exercises, each pending,
//! not started or judged. The output formats (`json`, `junit`,
//! `gradescope`) and the human summary all read this model.

use crate::grade::plan::Submission;
use crate::manifest::Exercise;
use crate::report::{CheckReport, ExerciseReport, Stage, describe};
use judge_harness::Outcome;

/// Where one exercise of a submission stands.
#[derive(Clone, Debug)]
pub(crate) enum Verdict {
    /// Not graded yet (a run that stopped early leaves this).
    Pending,
    /// The submission has no folder for the exercise.
    NotStarted,
    /// Built and run (or not compiled): the judge's report.
    Judged(Box<ExerciseReport>),
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
            })
            .collect();
        Self {
            submission,
            exercises,
            complete: false,
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

    /// Everything about a check's failure, as plain text (`None` when it passed).
    pub(crate) fn details(&self, check: &CheckReport) -> Option<String> {
        check_details(check).map(|text| self.relative(&text))
    }

    /// `text` with paths to copies of the crate written from `exercises/`.
    fn relative(&self, text: &str) -> String {
        relative(text, &self.exercise.dir_name())
    }

    /// `pending`, `not_started`, `compile_error`, `harness_failure`, `passed` or `failed`.
    pub(crate) fn status(&self) -> &'static str {
        match &self.verdict {
            Verdict::Pending => "pending",
            Verdict::NotStarted => "not_started",
            Verdict::Judged(report) => match &report.stage {
                Stage::CompileError { .. } => "compile_error",
                Stage::HarnessFailure { .. } => "harness_failure",
                Stage::Checked { .. } if report.passed() => "passed",
                Stage::Checked { .. } => "failed",
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
            ("failed", Some(report)) => {
                let checks = report.checks();
                let passed = checks.iter().filter(|c| c.outcome.passed()).count();
                format!("{passed} of {} checks passed", checks.len())
            }
            ("compile_error", _) => "does not compile".into(),
            ("harness_failure", _) => "the checks could not run".into(),
            (status, _) => status.replace('_', " "),
        }
    }
}

/// A check outcome's status: `passed`, `failed`, `panicked`, `timed_out`, `crashed` or `not_run`.
pub(crate) fn check_status(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Passed => "passed",
        Outcome::Failed { .. } => "failed",
        Outcome::Panicked { .. } => "panicked",
        Outcome::TimedOut { .. } => "timed_out",
        Outcome::Crashed { .. } => "crashed",
        Outcome::NotRun => "not_run",
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
    })
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

/// `text` with each path into a copy of the crate `folder`
/// (`/scratch/ada-1f2e/101-slug/src/lib.rs:4:7`) written from `exercises/`
/// (`exercises/101-slug/src/lib.rs:4:7`), whichever machine built it: the
/// student knows their crate, not the judge's scratch folder.
pub(crate) fn relative(text: &str, folder: &str) -> String {
    let marker = format!("/{folder}/src/");
    let stop = |c: char| c.is_whitespace() || "\"'`(".contains(c);
    let (mut relative, mut rest) = (String::with_capacity(text.len()), text);
    while let Some(at) = rest.find(&marker) {
        let before = &rest[..at];
        let start = before.char_indices().rev().find(|&(_, c)| stop(c));
        relative.push_str(&before[..start.map_or(0, |(i, c)| i + c.len_utf8())]);
        relative.push_str("exercises");
        relative.push_str(&marker);
        rest = &rest[at + marker.len()..];
    }
    relative.push_str(rest);
    relative
}

/// `text` without ANSI escape sequences or other control characters (but
/// newlines and tabs), as the compiler's colored messages need for a file.
pub(crate) fn plain(text: &str) -> String {
    anstream::adapter::strip_str(text)
        .to_string()
        .replace(|c: char| c.is_control() && c != '\n' && c != '\t', "")
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
    fn writes_points_for_people_and_machines() {
        assert_eq!(
            [points(10.0), points(2.5), points(10.0 / 3.0), points(0.0)],
            ["10", "2.5", "3.33", "0"]
        );
        assert_eq!(round(10.0 / 3.0), 3.3333);
        let log = " --> /t/judge/grade/ada-1f/101-x/src/lib.rs:4:7\n at `/other/101-x/src/a.rs` 101-x/src/";
        let relative = relative(log, "101-x");
        assert_eq!(
            relative,
            " --> exercises/101-x/src/lib.rs:4:7\n at `exercises/101-x/src/a.rs` 101-x/src/"
        );
        assert_eq!(
            plain("\u{1b}[1m\u{1b}[38;5;9merror\u{1b}[0m: x\r\n\ty\u{7}"),
            "error: x\n\ty"
        );
    }
}
