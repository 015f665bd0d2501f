//! Checks the book the way a reader would find its faults, before a reader does.
//!
//! The book (`book.toml`, sources in `chapters/`) is built by mdBook, which
//! is forgiving: an `{{#include}}` of a missing anchor becomes an empty code
//! block, a link to a missing heading is a dead link, an image that is not
//! there is a broken picture. [`check_book`] reads every Markdown file of the
//! book's source folder, expands its includes the way mdBook does, and
//! reports, as [`Problem`]s:
//!
//! * an include whose file is missing, or whose anchor is not in the file
//!   (or is opened and never closed) ([`mod@include`]);
//! * a Rust code block that is pasted text rather than an include of a file
//!   that cargo compiles ([`include::pasted_rust`]), in the page or in the
//!   Markdown an include brings into it (an exercise's statement);
//! * a relative link to a file that does not exist, or that lies outside the
//!   source folder (mdBook does not copy it, so the site's link is dead), or
//!   to a `#heading` the target page does not have ([`links`]);
//! * an image reference to a missing file ([`links`]);
//! * a measured figure of the prose, written as a link to its measurement
//!   file (`[3.23 µs](measurements/graphs_replay.txt)`), that is not in that
//!   file, or that links a file that does not exist ([`measured`]).
//!
//! Whether each measurement file is fresh (its `commit:` line against the
//! history of the code it measures) is [`provenance`]'s to say, over the
//! measurements folder rather than page by page.
//!
//! `SUMMARY.md` is left to mdBook itself: with `create-missing = false` in
//! `book.toml`, `mdbook build` fails on a chapter file that is not there. So
//! a link to a chapter that `SUMMARY.md` lists and that is not written yet is
//! not reported here (the build reports it, and the book is written by
//! several people at once); its `#fragment` is checked once the file exists.
//!
//! The rendered pages are checked in a real browser by [`browser`]: headless
//! Chromium loads them from a small local server and reports images that did
//! not load, console errors, unresolved directives and dead internal links,
//! and [`widgets`] drives the chapters' live timelines there, [`predictions`]
//! their predictions.

pub mod browser;
pub mod include;
pub mod links;
pub mod measured;
pub mod predictions;
pub mod provenance;
pub mod server;
pub mod shadow;
pub mod widgets;

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// One fault of the book, in one source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The Markdown file, relative to the source folder.
    pub file: PathBuf,
    /// What is wrong and what to do.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.message)
    }
}

/// The book's source folder: `book.toml`'s `[book] src` under `root`.
pub fn source_dir(root: &Path) -> Result<PathBuf, String> {
    let path = root.join("book.toml");
    let text = fs_err::read_to_string(&path).map_err(|e| e.to_string())?;
    let config: toml::Table = text
        .parse()
        .map_err(|e| format!("`{}` is not valid TOML: {e}", path.display()))?;
    let src = config
        .get("book")
        .and_then(|book| book.get("src"))
        .and_then(|src| src.as_str())
        .unwrap_or("src");
    Ok(root.join(src))
}

/// Every Markdown file under `src` but `SUMMARY.md`, sorted.
pub fn markdown_files(src: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(src)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(walkdir::DirEntry::into_path)
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .filter(|p| {
            p.strip_prefix(src)
                .is_ok_and(|r| r != Path::new("SUMMARY.md"))
        })
        .collect();
    files.sort();
    files
}

/// Checks every Markdown file of the book whose `book.toml` is in `root`.
pub fn check_book(root: &Path) -> Result<Vec<Problem>, String> {
    let src = source_dir(root)?;
    let src = src.canonicalize().map_err(|e| {
        format!(
            "the book's source folder `{}` is missing ({e}); check `src` in `book.toml`",
            src.display()
        )
    })?;
    let planned = summary_chapters(&src);
    let mut problems = Vec::new();
    for file in markdown_files(&src) {
        problems.extend(check_file(&src, &file, &planned));
    }
    Ok(problems)
}

/// The chapter files `SUMMARY.md` lists, as paths under `src`.
pub fn summary_chapters(src: &Path) -> BTreeSet<PathBuf> {
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap_or_default();
    links::references(&summary)
        .links
        .iter()
        .filter(|l| !links::is_external(l) && l.ends_with(".md"))
        .map(|l| links::lexical_join(src, l))
        .collect()
}

/// Checks one Markdown file of the book whose source folder is `src`;
/// `planned` are the chapters `SUMMARY.md` lists.
pub fn check_file(src: &Path, file: &Path, planned: &BTreeSet<PathBuf>) -> Vec<Problem> {
    let relative = file.strip_prefix(src).unwrap_or(file).to_path_buf();
    let problem = |message: String| Problem {
        file: relative.clone(),
        message,
    };
    let raw = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) => return vec![problem(format!("cannot read it: {e}"))],
    };
    let mut messages = include::pasted_rust(&raw);
    messages.extend(include::mirrored(&raw, file.parent().unwrap_or(src)));
    messages.extend(measured::check(src, file.parent().unwrap_or(src), &raw));
    let expanded = include::expand(&raw, file.parent().unwrap_or(src), &mut messages);
    messages.extend(links::check(src, file, &expanded, planned));
    messages.into_iter().map(problem).collect()
}
