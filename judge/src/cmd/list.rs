//! `judge list`: every exercise, its status, and the progress count.

use crate::course::Course;
use crate::exit;
use crate::progress::{self, Status};
use anstyle::{AnsiColor, Style};
use anyhow::Result;
use std::io::Write;
use std::path::Path;

/// Prints the exercise table.
pub(crate) fn list(root: Option<&Path>) -> Result<u8> {
    let course = Course::open(root)?;
    let statuses = progress::load(&course);
    let mut out = anstream::stdout();
    write_table(&course, &statuses, &mut out)?;
    Ok(exit::OK)
}

fn write_table(
    course: &Course,
    statuses: &std::collections::BTreeMap<u32, Status>,
    out: &mut dyn Write,
) -> Result<()> {
    let head = Style::new().bold();
    let exercises = &course.manifest.exercises;
    // Each column as wide as its widest entry, so long titles stay aligned.
    let width = |of: &dyn Fn(&crate::manifest::Exercise) -> usize, header: &str| {
        exercises
            .iter()
            .map(of)
            .chain([header.len()])
            .max()
            .unwrap_or(0)
    };
    let title_w = width(&|e| e.title.chars().count(), "title");
    let chapter_w = width(&|e| e.chapter.chars().count(), "chapter");
    let columns = format!(
        "{:<5} {:<title_w$} {:<chapter_w$} {:<10} {:<4} status",
        "id", "title", "chapter", "difficulty", "gpu"
    );
    writeln!(out, "{head}{columns}{head:#}")?;
    for e in exercises {
        let status = statuses.get(&e.id).copied().unwrap_or(Status::NotStarted);
        let style = match status {
            Status::Passed => AnsiColor::Green.on_default(),
            Status::Failing => AnsiColor::Red.on_default(),
            Status::NotStarted => Style::new().dimmed(),
        };
        let stars = "★".repeat(e.difficulty.into());
        let gpu = if e.gpu { "yes" } else { "-" };
        writeln!(
            out,
            "{:<5} {:<title_w$} {:<chapter_w$} {:<10} {gpu:<4} {style}{}{style:#}",
            e.id,
            e.title,
            e.chapter,
            stars,
            status.label()
        )?;
    }
    let done = statuses.values().filter(|s| **s == Status::Passed).count();
    writeln!(
        out,
        "\nprogress: {done} of {} exercises passed",
        course.manifest.exercises.len()
    )?;
    Ok(())
}
