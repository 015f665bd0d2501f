//! A class's results read back from the JSON format, and what an
//! instructor reads from them: the gradebook (CSV, one row per student, one
//! column per exercise, and the total) and the class report (for each
//! exercise, how many students stand where; each check's failures; the
//! causes the judge told, with the students who got each).
//!
//! Everything here reads the JSON document ([`super::json`] documents it),
//! never the grading run's own model, so that a class graded in shards and
//! merged (`judge grade --merge`) gets the same gradebook and report as one
//! graded whole.
//!
//! Just under 500 lines with its unit tests: reading the document back,
//! the gradebook and the report's tallies share one model of a class, and
//! the files that cannot be written are counted where the rest is.
//!
//! A cause is what the judge told a student about a failed check: its
//! detail (the explanation, with the chapter section), or what happened
//! when there is none. Two students got the same cause when the texts are
//! the same once every number is written `N` (their sizes, addresses and
//! times differ; the explanation does not).

mod markdown;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub(crate) use markdown::render as markdown;

/// A results document of the JSON format, as much of it as the gradebook
/// and the report read.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Results {
    /// The layout's version.
    pub(crate) format: u32,
    /// Whether every submission was graded.
    pub(crate) complete: bool,
    /// The seed of the checks' generated workloads (none when merged shards
    /// had different ones).
    pub(crate) seed: Option<u64>,
    /// Every submission.
    pub(crate) submissions: Vec<Submission>,
}

/// One submission.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Submission {
    /// The submission folder's name: the student.
    pub(crate) name: String,
    /// Whether every exercise was graded.
    pub(crate) complete: bool,
    /// Points earned.
    pub(crate) score: f64,
    /// Folders of its `exercises/` that are no exercise.
    #[serde(default)]
    pub(crate) unknown_folders: Vec<Unknown>,
    /// What the judge noticed about the entry itself (no folder).
    #[serde(default)]
    pub(crate) note: Option<String>,
    /// Why its own results file could not be written (Gradescope's, one
    /// per student), and what to do.
    #[serde(default)]
    pub(crate) results_error: Option<String>,
    /// Every exercise of the course, in the manifest's order.
    pub(crate) exercises: Vec<Exercise>,
}

/// A folder of a submission's `exercises/` that is no exercise.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub(crate) struct Unknown {
    /// Its name.
    pub(crate) folder: String,
    /// The exercise it may have meant.
    pub(crate) meant: Option<String>,
}

/// One exercise of a submission.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Exercise {
    /// Its id.
    pub(crate) id: u32,
    /// Its slug.
    pub(crate) slug: String,
    /// Its title.
    pub(crate) title: String,
    /// The chapter that teaches it.
    pub(crate) chapter: String,
    /// Where it stands (`passed`, `compile_error`, …).
    pub(crate) status: String,
    /// Points earned.
    pub(crate) score: f64,
    /// Points possible.
    pub(crate) max_score: u32,
    /// Its checks (none when they did not run).
    #[serde(default)]
    pub(crate) checks: Vec<Check>,
}

/// One check of an exercise of a submission.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Check {
    /// Its name.
    pub(crate) name: String,
    /// What it checks.
    pub(crate) title: String,
    /// The chapter section that explains it.
    pub(crate) section: String,
    /// `passed`, `failed`, `panicked`, `timed_out`, `crashed` or `not_run`.
    pub(crate) status: String,
    /// A failure's "what happened".
    pub(crate) actual: Option<String>,
    /// A failure's explanation.
    pub(crate) detail: Option<String>,
    /// A panic's message.
    pub(crate) message: Option<String>,
    /// How the process died.
    pub(crate) how: Option<String>,
}

impl Results {
    /// The document in `text`, which `what` names in an error.
    pub(crate) fn parse(text: &str, what: &str) -> Result<Self> {
        let results: Self = serde_json::from_str(text).with_context(|| {
            format!("`{what}` is not the judge's JSON results (`judge grade --format json`)")
        })?;
        if results.format != 1 {
            anyhow::bail!(
                "`{what}` has results format {}, and this judge reads format 1: merge it with the judge that wrote it",
                results.format
            );
        }
        Ok(results)
    }

    /// The exercises, as the first submission lists them (every submission
    /// lists the course's exercises in the manifest's order).
    fn exercises(&self) -> Vec<&Exercise> {
        self.submissions
            .first()
            .map(|s| s.exercises.iter().collect())
            .unwrap_or_default()
    }
}

/// The gradebook: a header (`student`, each exercise as `ID-SLUG (of
/// POINTS)`, `total (of POINTS)`, `complete`), then one row per student.
pub(crate) fn gradebook(results: &Results) -> String {
    let exercises = results.exercises();
    let total: u32 = exercises.iter().map(|e| e.max_score).sum();
    let mut header = vec!["student".to_string()];
    header.extend(
        exercises
            .iter()
            .map(|e| format!("{}-{} (of {})", e.id, e.slug, e.max_score)),
    );
    header.extend([format!("total (of {total})"), "complete".into()]);
    let mut lines = vec![row(&header)];
    for submission in &results.submissions {
        let mut cells = vec![submission.name.clone()];
        for exercise in &exercises {
            let score = submission
                .exercises
                .iter()
                .find(|e| e.id == exercise.id)
                .map_or(0.0, |e| e.score);
            cells.push(number(score));
        }
        cells.push(number(submission.score));
        cells.push(submission.complete.to_string());
        lines.push(row(&cells));
    }
    lines.join("")
}

/// Points as the gradebook writes them: `10`, `2.5`, `3.3333`.
fn number(points: f64) -> String {
    let text = format!("{points:.4}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// One CSV row (RFC 4180: a cell with a comma, a quote or a line break is
/// quoted), ended by CRLF. A cell that a spreadsheet would read as a
/// formula (it starts with `=`, `+`, `-` or `@`, as a folder's name may)
/// gets a leading `'`, so that opening the gradebook runs nothing.
fn row(cells: &[String]) -> String {
    let cells: Vec<String> = cells.iter().map(|c| cell(c)).collect();
    format!("{}\r\n", cells.join(","))
}

/// One CSV cell, quoted and defused as [`row`] says.
fn cell(text: &str) -> String {
    let is_number = text.parse::<f64>().is_ok();
    let text = match text.chars().next() {
        Some('=' | '+' | '-' | '@') if !is_number => format!("'{text}"),
        _ => text.to_string(),
    };
    match text.contains([',', '"', '\n', '\r']) {
        true => format!("\"{}\"", text.replace('"', "\"\"")),
        false => text,
    }
}

/// The class report: the document its JSON file holds and its Markdown
/// renders.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Report {
    /// This layout's version.
    pub(crate) format: u32,
    /// How many submissions.
    pub(crate) submissions: usize,
    /// Whether every submission was graded.
    pub(crate) complete: bool,
    /// The seed, when one seed graded them all.
    pub(crate) seed: Option<u64>,
    /// Each exercise, in the manifest's order.
    pub(crate) exercises: Vec<ExerciseReport>,
    /// Folders of students' `exercises/` that are no exercise.
    pub(crate) unknown_folders: Vec<UnknownFolder>,
    /// Entries of the class folder that are no submission folder (an
    /// archive left packed), each with what the judge noticed.
    pub(crate) not_submissions: Vec<NotSubmission>,
    /// Submissions whose own results file (Gradescope's, one per student)
    /// could not be written, each with why and what to do.
    pub(crate) unwritten: Vec<Unwritten>,
}

/// A submission whose own results file could not be written.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Unwritten {
    /// Whose.
    pub(crate) student: String,
    /// Why, and what to do.
    pub(crate) error: String,
}

/// An entry of the class folder that is no submission folder.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct NotSubmission {
    /// Its name.
    pub(crate) name: String,
    /// What it is, and what to do.
    pub(crate) note: String,
}

/// One exercise across the class.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ExerciseReport {
    /// Its id.
    pub(crate) id: u32,
    /// Its slug.
    pub(crate) slug: String,
    /// Its title.
    pub(crate) title: String,
    /// The chapter that teaches it.
    pub(crate) chapter: String,
    /// Points possible.
    pub(crate) max_score: u32,
    /// The mean of the students' points.
    pub(crate) mean_score: f64,
    /// How many students stand where (`passed`, `failed`, `compile_error`,
    /// …), the most common first, with their names.
    pub(crate) statuses: Vec<Group>,
    /// Each check that some student failed, the most failed first.
    pub(crate) checks: Vec<CheckFailures>,
}

/// Students who share something: a status, or a cause.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Group {
    /// What they share: the status, or the cause with its numbers written `N`.
    pub(crate) what: String,
    /// What the first of them was told, as it was (a cause only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) example: Option<String>,
    /// How many.
    pub(crate) count: usize,
    /// Who, in name order.
    pub(crate) students: Vec<String>,
}

/// One check's failures across the class.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct CheckFailures {
    /// Its name.
    pub(crate) name: String,
    /// What it checks.
    pub(crate) title: String,
    /// The chapter section that explains it.
    pub(crate) section: String,
    /// How many students' runs of it failed.
    pub(crate) failed: usize,
    /// How many students' checks ran at all.
    pub(crate) ran: usize,
    /// The causes the judge told, the most common first.
    pub(crate) causes: Vec<Group>,
}

/// A folder of a student's `exercises/` that is no exercise.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct UnknownFolder {
    /// Whose.
    pub(crate) student: String,
    /// The folder, and the exercise it may have meant.
    #[serde(flatten)]
    pub(crate) folder: Unknown,
}

/// The class report of `results`.
pub(crate) fn report(results: &Results) -> Report {
    let exercises = results
        .exercises()
        .into_iter()
        .map(|e| exercise_report(results, e))
        .collect();
    let unknown_folders = results
        .submissions
        .iter()
        .flat_map(|s| {
            s.unknown_folders.iter().map(|folder| UnknownFolder {
                student: s.name.clone(),
                folder: folder.clone(),
            })
        })
        .collect();
    let not_submissions = results
        .submissions
        .iter()
        .filter_map(|s| {
            let note = s.note.clone()?;
            Some(NotSubmission {
                name: s.name.clone(),
                note,
            })
        })
        .collect();
    let unwritten = results
        .submissions
        .iter()
        .filter_map(|s| {
            Some(Unwritten {
                student: s.name.clone(),
                error: s.results_error.clone()?,
            })
        })
        .collect();
    Report {
        format: 1,
        submissions: results.submissions.len(),
        complete: results.complete,
        seed: results.seed,
        exercises,
        unknown_folders,
        not_submissions,
        unwritten,
    }
}

/// The report of one exercise across the class.
fn exercise_report(results: &Results, first: &Exercise) -> ExerciseReport {
    let mut statuses = Tally::default();
    let mut checks: BTreeMap<String, (Check, usize, Tally)> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut total = 0.0;
    for submission in &results.submissions {
        let Some(exercise) = submission.exercises.iter().find(|e| e.id == first.id) else {
            continue;
        };
        total += exercise.score;
        statuses.add(&exercise.status, None, &submission.name);
        for check in &exercise.checks {
            let entry = checks.entry(check.name.clone()).or_insert_with(|| {
                order.push(check.name.clone());
                (check.clone(), 0, Tally::default())
            });
            entry.1 += 1;
            if check.status != "passed" {
                let told = told(check);
                entry
                    .2
                    .add(&normalized(&told), Some(told), &submission.name);
            }
        }
    }
    let mut checks: Vec<CheckFailures> = order
        .iter()
        .filter_map(|name| checks.remove(name))
        .map(|(check, ran, causes)| CheckFailures {
            name: check.name,
            title: check.title,
            section: check.section,
            failed: causes.count(),
            ran,
            causes: causes.groups(),
        })
        .filter(|c| c.failed > 0)
        .collect();
    checks.sort_by_key(|c| std::cmp::Reverse(c.failed));
    let count = results.submissions.len().max(1);
    ExerciseReport {
        id: first.id,
        slug: first.slug.clone(),
        title: first.title.clone(),
        chapter: first.chapter.clone(),
        max_score: first.max_score,
        mean_score: (total / count as f64 * 100.0).round() / 100.0,
        statuses: statuses.groups(),
        checks,
    }
}

/// What the judge told a student about a check that did not pass.
fn told(check: &Check) -> String {
    let text = match check.status.as_str() {
        "failed" => check.detail.clone().or_else(|| check.actual.clone()),
        "panicked" => check.message.as_ref().map(|m| format!("panicked: {m}")),
        "timed_out" => Some("did not finish within the exercise's time limit".into()),
        "crashed" => check
            .how
            .as_ref()
            .map(|how| format!("the process died during the check: {how}")),
        "not_run" => Some("not run: the exercise's time limit had passed".into()),
        _ => None,
    };
    text.unwrap_or_else(|| check.status.replace('_', " "))
}

/// `text` with every number (digits, with their `.` and `_`, or `0x` and
/// hex digits) written `N`.
pub(crate) fn normalized(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut after_word = false;
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() && !after_word {
            let hex = c == '0' && chars.peek() == Some(&'x');
            if hex {
                chars.next();
            }
            while let Some(&next) = chars.peek() {
                let part = next.is_ascii_digit()
                    || (hex && next.is_ascii_hexdigit())
                    || ((next == '.' || next == '_') && !hex);
                if !part {
                    break;
                }
                chars.next();
            }
            out.push('N');
            after_word = false;
            continue;
        }
        after_word = c.is_alphabetic() || c == '_' || (after_word && c.is_ascii_digit());
        out.push(c);
    }
    out
}

/// Students counted by what they share, keeping the first one's text.
#[derive(Debug, Default)]
struct Tally {
    /// Each key: the first text told, and the students.
    groups: BTreeMap<String, (Option<String>, Vec<String>)>,
}

impl Tally {
    /// Counts `student` under `key`.
    fn add(&mut self, key: &str, example: Option<String>, student: &str) {
        let entry = self
            .groups
            .entry(key.to_string())
            .or_insert_with(|| (example, Vec::new()));
        entry.1.push(student.to_string());
    }

    /// How many were counted.
    fn count(&self) -> usize {
        self.groups.values().map(|(_, s)| s.len()).sum()
    }

    /// The groups, the largest first (then by key), names sorted.
    fn groups(self) -> Vec<Group> {
        let mut groups: Vec<Group> = self
            .groups
            .into_iter()
            .map(|(what, (example, mut students))| {
                students.sort();
                let example = example.filter(|e| *e != what);
                Group {
                    what,
                    example,
                    count: students.len(),
                    students,
                }
            })
            .collect();
        groups.sort_by_key(|g| std::cmp::Reverse(g.count));
        groups
    }
}

#[cfg(test)]
mod tests;
