//! The exercise table: every exercise in the book's order, with its chapter
//! (number and title), difficulty and status, then a progress bar and what
//! comes next. `judge list` prints it, and `judge watch` shows it on `l`.

use crate::book;
use crate::course::Course;
use crate::manifest::Exercise;
use crate::progress::Status;
use anstyle::{AnsiColor, Style};
use std::collections::BTreeMap;
use std::io::{self, Write};

/// Where the exercises run: the virtual GPU always, a real one when there
/// is one, which checks the timings of the exercises whose manifest says so.
fn backends(exercises: &[Exercise]) -> String {
    let timed: Vec<String> = exercises
        .iter()
        .filter(|e| e.gpu)
        .map(|e| e.id.to_string())
        .collect();
    let on_a_gpu = match timed.len() {
        0 => "no exercise checks anything more there".to_string(),
        n if n == exercises.len() => "every exercise's timings are checked there too".into(),
        _ => format!("the timings of {} are checked there too", timed.join(", ")),
    };
    format!(
        "every exercise runs on the virtual GPU (no GPU needed); on your NVIDIA GPU, when you have one, {on_a_gpu}"
    )
}

/// The width of the progress bar, between its brackets.
const BAR: usize = 30;

/// Writes the table of `course`'s exercises with their `statuses`;
/// `current` (the exercise `judge watch` is on) is marked with `>`.
pub(crate) fn write(
    course: &Course,
    statuses: &BTreeMap<u32, Status>,
    current: Option<u32>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let chapters = book::chapters(&course.root);
    let exercises = &course.manifest.exercises;
    let chapter = |e: &Exercise| book::label(&chapters, &e.chapter);
    let status = |e: &Exercise| statuses.get(&e.id).copied().unwrap_or(Status::NotStarted);
    // Each column as wide as its widest entry, so long titles stay aligned.
    let width = |of: &dyn Fn(&Exercise) -> usize, header: &str| {
        let widest = exercises.iter().map(of).max().unwrap_or(0);
        widest.max(header.chars().count())
    };
    let title_w = width(&|e| e.title.chars().count(), "title");
    let chapter_w = width(&|e| chapter(e).chars().count(), "chapter");
    let head = Style::new().bold();
    let columns = format!(
        "  {:<5} {:<title_w$} {:<chapter_w$} {:<10} status",
        "id", "title", "chapter", "difficulty"
    );
    writeln!(out, "{head}{columns}{head:#}")?;
    for e in exercises {
        let status = status(e);
        let style = match status {
            Status::Passed => AnsiColor::Green.on_default(),
            Status::Failing => AnsiColor::Red.on_default(),
            Status::NotStarted => Style::new().dimmed(),
        };
        let mark = if current == Some(e.id) { ">" } else { " " };
        let stars = "★".repeat(e.difficulty.into());
        writeln!(
            out,
            "{mark} {:<5} {:<title_w$} {:<chapter_w$} {stars:<10} {style}{}{style:#}",
            e.id,
            e.title,
            chapter(e),
            status.label()
        )?;
    }
    let done = exercises
        .iter()
        .filter(|e| status(e) == Status::Passed)
        .count();
    writeln!(out)?;
    writeln!(out, "{}", backends(exercises))?;
    writeln!(
        out,
        "progress: {} {done} of {} exercises passed",
        bar(done, exercises.len()),
        exercises.len()
    )?;
    // In watch mode the learner is on an exercise already: `n` moves on.
    let next = exercises.iter().find(|e| status(e) != Status::Passed);
    match next.filter(|_| current.is_none()) {
        Some(e) => writeln!(
            out,
            "next: {} {} ({}): `judge run {}` or `judge watch`",
            e.id,
            e.title,
            chapter(e),
            e.id
        ),
        None if next.is_none() => writeln!(out, "every exercise has passed: well done!"),
        None => Ok(()),
    }
}

/// `[#######>----------]`: `done` of `total`, rustlings' way.
fn bar(done: usize, total: usize) -> String {
    let filled = (done * BAR).checked_div(total).unwrap_or(0);
    let head = usize::from(filled < BAR && done > 0);
    let rest = BAR - filled - head;
    format!(
        "[{}{}{}]",
        "#".repeat(filled),
        ">".repeat(head),
        "-".repeat(rest)
    )
}

#[cfg(test)]
mod tests {
    use super::bar;

    #[test]
    fn the_bar_fills_with_the_exercises_passed() {
        assert_eq!(bar(0, 7), format!("[{}]", "-".repeat(30)));
        assert_eq!(bar(7, 7), format!("[{}]", "#".repeat(30)));
        assert_eq!(bar(2, 7), format!("[{}>{}]", "#".repeat(8), "-".repeat(21)));
        assert_eq!(bar(0, 0), format!("[{}]", "-".repeat(30)), "no exercises");
    }
}
