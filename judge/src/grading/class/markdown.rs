//! The class report in Markdown, for an instructor to read: a table of the
//! exercises, then for each exercise where its students stand and, check
//! by check (the most failed first), the causes the judge told and who got
//! each.

use super::{ExerciseReport, Group, Report};
use std::fmt::Write;

/// How many characters of a cause the report quotes.
const QUOTED: usize = 400;

/// The report as Markdown.
pub(crate) fn render(report: &Report) -> String {
    let mut out = String::new();
    let graded = match report.complete {
        true => "all graded",
        false => "not all graded yet (the run stopped or a shard is missing)",
    };
    let seed = report
        .seed
        .map_or_else(String::new, |seed| format!(", seed {seed}"));
    let _ = writeln!(out, "# Class report\n");
    let _ = writeln!(
        out,
        "{} submissions, {graded}{seed}. For each exercise: where the students stand, the checks \
         that failed most, and the causes the judge told, with the students who got each \
         (causes are the same when they differ only in their numbers).\n",
        report.submissions
    );
    let _ = writeln!(out, "| exercise | mean | passed | failed | other |");
    let _ = writeln!(out, "|---|---|---|---|---|");
    for exercise in &report.exercises {
        let count = |status: &str| {
            exercise
                .statuses
                .iter()
                .find(|g| g.what == status)
                .map_or(0, |g| g.count)
        };
        let (passed, failed) = (count("passed"), count("failed"));
        let other = report.submissions - passed - failed;
        let _ = writeln!(
            out,
            "| {} {} | {} of {} | {passed} | {failed} | {other} |",
            exercise.id,
            exercise.title,
            points(exercise.mean_score),
            exercise.max_score
        );
    }
    for exercise in &report.exercises {
        write_exercise(&mut out, exercise);
    }
    if !report.unknown_folders.is_empty() {
        let _ = writeln!(out, "\n## Folders that are no exercise\n");
        let _ = writeln!(
            out,
            "Each is not graded; its exercise counts as not started unless the student has it too.\n"
        );
        for unknown in &report.unknown_folders {
            let meant = unknown
                .folder
                .meant
                .as_ref()
                .map_or_else(String::new, |m| format!(" (meant `{m}`?)"));
            let _ = writeln!(
                out,
                "- {}: `exercises/{}`{meant}",
                unknown.student, unknown.folder.folder
            );
        }
    }
    if !report.not_submissions.is_empty() {
        let _ = writeln!(out, "\n## Entries that are no submission\n");
        for entry in &report.not_submissions {
            let _ = writeln!(out, "- {}", entry.note);
        }
    }
    if !report.unwritten.is_empty() {
        let _ = writeln!(out, "\n## Results files not written\n");
        for entry in &report.unwritten {
            let _ = writeln!(out, "- {}: {}", entry.student, entry.error);
        }
    }
    out
}

/// One exercise's section.
fn write_exercise(out: &mut String, exercise: &ExerciseReport) {
    let _ = writeln!(
        out,
        "\n## {} {} ({})\n",
        exercise.id, exercise.title, exercise.chapter
    );
    let statuses: Vec<String> = exercise
        .statuses
        .iter()
        .map(|g| format!("{} {}", g.what.replace('_', " "), g.count))
        .collect();
    let _ = writeln!(
        out,
        "{}; mean {} of {} points.\n",
        statuses.join(" · "),
        points(exercise.mean_score),
        exercise.max_score
    );
    for group in exercise.statuses.iter().filter(|g| g.what != "passed") {
        let _ = writeln!(
            out,
            "- {}: {}",
            group.what.replace('_', " "),
            group.students.join(", ")
        );
    }
    if exercise.checks.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n| check | failed | of |");
    let _ = writeln!(out, "|---|---|---|");
    for check in &exercise.checks {
        let _ = writeln!(
            out,
            "| `{}`: {} | {} | {} |",
            check.name, check.title, check.failed, check.ran
        );
    }
    for check in &exercise.checks {
        let _ = writeln!(
            out,
            "\n### `{}`: {} of {} failed\n\nExplained in `{}`.\n",
            check.name, check.failed, check.ran, check.section
        );
        for cause in &check.causes {
            write_cause(out, cause);
        }
    }
}

/// One cause: how many, who, and what the first of them was told.
fn write_cause(out: &mut String, cause: &Group) {
    let told = cause.example.as_deref().unwrap_or(&cause.what);
    let plural = if cause.count == 1 { "" } else { "s" };
    let _ = writeln!(
        out,
        "- **{} student{plural}** ({}):",
        cause.count,
        cause.students.join(", ")
    );
    let mut quoted: String = told.chars().take(QUOTED).collect();
    if told.chars().count() > QUOTED {
        quoted.push('…');
    }
    for line in quoted.lines() {
        let _ = writeln!(out, "  > {line}");
    }
}

/// Points for a person: `10`, `2.5`, `3.33`.
fn points(points: f64) -> String {
    crate::grading::model::points(points)
}
