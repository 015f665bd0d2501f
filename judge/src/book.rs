//! The book's chapters as `chapters/SUMMARY.md` lists them: each numbered
//! chapter's number (as mdBook numbers it), title and file. `judge list`
//! shows an exercise's chapter by number and title, and `judge verify`
//! checks that the manifest follows the chapters' order. And where a
//! check's section is, for a reader: [`Book::place`].

use std::path::Path;

/// A numbered chapter of the book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Chapter {
    /// Its number, from 1, in the order of the summary.
    pub(crate) number: usize,
    /// Its title, as the summary writes it (backticks kept).
    pub(crate) title: String,
    /// Its file, relative to `chapters/`.
    pub(crate) path: String,
}

/// The numbered chapters of the course at `root`; none when it has no
/// `chapters/SUMMARY.md` (a course without a book).
pub(crate) fn chapters(root: &Path) -> Vec<Chapter> {
    std::fs::read_to_string(root.join("chapters/SUMMARY.md"))
        .map(|text| parse(&text))
        .unwrap_or_default()
}

/// The numbered chapters of a summary: the top-level items of its lists
/// (`- [Title](file.md)`), numbered across its parts; prefix chapters
/// (`[Title](file.md)` without a dash), part titles and nested items are
/// not numbered chapters.
fn parse(summary: &str) -> Vec<Chapter> {
    summary
        .lines()
        .filter_map(|line| line.strip_prefix("- "))
        .filter_map(link)
        .enumerate()
        .map(|(i, (title, path))| Chapter {
            number: i + 1,
            title,
            path,
        })
        .collect()
}

/// The title and target of a Markdown link `[title](target)`.
fn link(text: &str) -> Option<(String, String)> {
    let rest = text.trim().strip_prefix('[')?;
    let (title, rest) = rest.rsplit_once("](")?;
    let path = rest.strip_suffix(')')?;
    Some((title.to_string(), path.to_string()))
}

/// The chapter whose file is `path`, if the book has it.
pub(crate) fn find<'a>(chapters: &'a [Chapter], path: &str) -> Option<&'a Chapter> {
    chapters.iter().find(|c| c.path == path)
}

/// `3. Hidden sync points`, or the file itself when the book lacks it.
pub(crate) fn label(chapters: &[Chapter], path: &str) -> String {
    match find(chapters, path) {
        Some(c) => format!("{}. {}", c.number, c.title.replace('`', "")),
        None => path.to_string(),
    }
}

/// The book of a course, to say where a section is.
#[derive(Clone, Debug)]
pub(crate) struct Book {
    /// The course folder.
    root: std::path::PathBuf,
    /// Its numbered chapters.
    chapters: Vec<Chapter>,
}

/// Where `judge run` tells a reader the book is served (`mdbook serve`).
pub(crate) const SERVED: &str = "http://localhost:3000";

impl Book {
    /// The book of the course at `root`.
    pub(crate) fn of(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            chapters: chapters(root),
        }
    }

    /// Where the section `file.md#anchor` is, for a reader: the chapter,
    /// the heading, and the page to open (`3. Hidden sync points, "Pageable
    /// copies": http://localhost:3000/hidden-syncs.html#pageable-copies
    /// under `mdbook serve`, or chapters/hidden-syncs.md`); the section as
    /// it is when the book has no such file.
    pub(crate) fn place(&self, section: &str) -> String {
        let (file, anchor) = section.split_once('#').unwrap_or((section, ""));
        let Ok(text) = std::fs::read_to_string(self.root.join("chapters").join(file)) else {
            return section.to_string();
        };
        let page = file.strip_suffix(".md").unwrap_or(file);
        let heading = headings(&text)
            .into_iter()
            .find(|(_, id)| id == anchor)
            .map(|(title, _)| format!(", \"{title}\""))
            .unwrap_or_default();
        let hash = if anchor.is_empty() {
            String::new()
        } else {
            format!("#{anchor}")
        };
        format!(
            "{}{heading}: {SERVED}/{page}.html{hash} under `mdbook serve`, or chapters/{file}",
            label(&self.chapters, file)
        )
    }
}

/// The headings of a chapter, each with the id mdBook gives it (a second
/// heading of the same id gets `-1`, and so on), code blocks left out.
fn headings(text: &str) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = Vec::new();
    let mut counts: std::collections::HashMap<String, usize> = Default::default();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        let Some(title) = line.strip_prefix('#').filter(|_| !in_code) else {
            continue;
        };
        let title = title.trim_start_matches('#').trim().replace('`', "");
        let base = id(&title);
        let seen = counts.entry(base.clone()).or_insert(0);
        let id = match *seen {
            0 => base,
            n => format!("{base}-{n}"),
        };
        *seen += 1;
        found.push((title, id));
    }
    found
}

/// The id mdBook gives a heading: its letters, digits, `-` and `_` in
/// lowercase, each space a `-`, the rest left out.
fn id(title: &str) -> String {
    title
        .chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c.to_ascii_lowercase()),
            c if c.is_whitespace() => Some('-'),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_get_mdbooks_ids() {
        let text = "# CPU and GPU\n\n## Timing GPU work\n```sh\n# not a heading\n```\n## Timing GPU work\n### The `judge watch` keys (a table)\n";
        let ids: Vec<String> = headings(text).into_iter().map(|(_, id)| id).collect();
        assert_eq!(
            ids,
            [
                "cpu-and-gpu",
                "timing-gpu-work",
                "timing-gpu-work-1",
                "the-judge-watch-keys-a-table"
            ]
        );
    }

    #[test]
    fn a_section_of_the_workbook_is_placed_in_its_chapter_and_page() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let book = Book::of(&root);
        assert_eq!(
            book.place("hidden-syncs.md#pageable-copies"),
            "3. Hidden sync points, \"Pageable copies\": http://localhost:3000/hidden-syncs.html#pageable-copies under `mdbook serve`, or chapters/hidden-syncs.md"
        );
        assert_eq!(book.place("nowhere.md#x"), "nowhere.md#x");
    }

    const SUMMARY: &str = "# Summary\n\n[Introduction](introduction.md)\n[Setting up](setup.md)\n\n# Part one\n\n- [CPU and GPU](cpu-and-gpu.md)\n- [Streams and events](streams-and-events.md)\n  - [A section](section.md)\n\n# Part two\n\n- [The `gpu` crate](api.md)\n";

    #[test]
    fn numbers_the_top_level_items_across_parts() {
        let chapters = parse(SUMMARY);
        let got: Vec<(usize, &str, &str)> = chapters
            .iter()
            .map(|c| (c.number, c.title.as_str(), c.path.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (1, "CPU and GPU", "cpu-and-gpu.md"),
                (2, "Streams and events", "streams-and-events.md"),
                (3, "The `gpu` crate", "api.md"),
            ]
        );
    }

    #[test]
    fn a_chapter_is_labelled_by_number_and_title_else_by_its_file() {
        let chapters = parse(SUMMARY);
        assert_eq!(label(&chapters, "api.md"), "3. The gpu crate");
        assert_eq!(label(&chapters, "setup.md"), "setup.md", "not numbered");
        assert_eq!(label(&[], "x.md"), "x.md");
    }

    #[test]
    fn the_workbooks_summary_numbers_its_chapters() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let chapters = chapters(&root);
        assert_eq!(label(&chapters, "cpu-and-gpu.md"), "1. CPU and GPU");
        assert_eq!(label(&chapters, "hidden-syncs.md"), "3. Hidden sync points");
        assert_eq!(label(&chapters, "cuda-graphs.md"), "6. CUDA graphs");
    }
}
