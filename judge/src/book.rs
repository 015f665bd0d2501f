//! The book's chapters as `chapters/SUMMARY.md` lists them: each numbered
//! chapter's number (as mdBook numbers it), title and file. `judge list`
//! shows an exercise's chapter by number and title, and `judge verify`
//! checks that the manifest follows the chapters' order.

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

#[cfg(test)]
mod tests {
    use super::*;

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
