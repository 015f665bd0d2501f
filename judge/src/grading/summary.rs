//! The short summary of a graded submission, for a person: its points, and a
//! line per exercise with its points and what happened.
//!
//! ```text
//! ada: 10 of 30 points
//!   901-passes          10 / 10  passed
//!   902-wrong-answer     0 / 10  1 of 3 checks passed
//!   903-compile-error    0 / 10  not started
//! ```

use crate::grading::model::{Status, SubmissionResult, points};
use anstyle::{AnsiColor, Style};
use std::io::{self, Write};

/// A passed exercise.
const PASS: Style = AnsiColor::Green.on_default();
/// Any other.
const FAIL: Style = AnsiColor::Red.on_default();
/// The submission's line.
const HEAD: Style = Style::new().bold();

/// Writes the summary of `result`, in color where `out` allows.
pub(crate) fn render(result: &SubmissionResult, out: &mut dyn Write) -> io::Result<()> {
    let (name, score, max) = (
        &result.submission.name,
        points(result.score()),
        result.max_score(),
    );
    writeln!(
        out,
        "{HEAD}{name}: {score} of {max} points{HEAD:#}{}",
        used(result)
    )?;
    for (head, status, passed) in lines(result) {
        let style = if passed { PASS } else { FAIL };
        writeln!(out, "{head}  {style}{status}{style:#}")?;
    }
    for note in unknown(result) {
        writeln!(out, "  {FAIL}{note}{FAIL:#}")?;
    }
    Ok(())
}

/// The summary of `result` as plain text.
pub(crate) fn text(result: &SubmissionResult) -> String {
    let (name, score, max) = (
        &result.submission.name,
        points(result.score()),
        result.max_score(),
    );
    let mut text = format!("{name}: {score} of {max} points{}\n", used(result));
    for (head, status, _) in lines(result) {
        text.push_str(&format!("{head}  {status}\n"));
    }
    for note in unknown(result) {
        text.push_str(&format!("  {note}\n"));
    }
    text
}

/// What the judge noticed about the submission: its entry's note (no
/// folder), a line per folder of its `exercises/` that is no exercise, and
/// why its own results file could not be written.
fn unknown(result: &SubmissionResult) -> Vec<String> {
    let note = result.submission.note.iter().cloned();
    let unwritten = result.results_error.iter().cloned();
    note.chain(result
        .unknown_folders
        .iter()
        .map(|(folder, meant)| match meant {
            Some(meant) => format!(
                "`exercises/{folder}` is no exercise of the course, and was not graded: is it `exercises/{meant}`?"
            ),
            None => format!("`exercises/{folder}` is no exercise of the course, and was not graded"),
        }))
        .chain(unwritten)
        .collect()
}

/// What the submission's builds and checks took, and of what budget.
fn used(result: &SubmissionResult) -> String {
    match result.budget_s {
        Some(budget) => format!(" ({:.0} s of a {budget:.0} s budget)", result.seconds()),
        None => format!(" ({:.0} s)", result.seconds()),
    }
}

/// A line per exercise (its folder and points, aligned), what happened, and whether it passed.
fn lines(result: &SubmissionResult) -> Vec<(String, String, bool)> {
    let width = |texts: &[String]| texts.iter().map(String::len).max().unwrap_or(0);
    let folders: Vec<String> = result
        .exercises
        .iter()
        .map(|e| e.exercise.dir_name())
        .collect();
    let scores: Vec<String> = result.exercises.iter().map(|e| points(e.score())).collect();
    let maxima: Vec<String> = result
        .exercises
        .iter()
        .map(|e| e.exercise.points.to_string())
        .collect();
    let (folder_width, score_width, max_width) = (width(&folders), width(&scores), width(&maxima));
    let columns = folders.iter().zip(&scores).zip(&maxima);
    result
        .exercises
        .iter()
        .zip(columns)
        .map(|(exercise, ((folder, score), max))| {
            let head =
                format!("  {folder:<folder_width$}  {score:>score_width$} / {max:<max_width$}");
            (
                head,
                exercise.describe(),
                exercise.status() == Status::Passed,
            )
        })
        .collect()
}
