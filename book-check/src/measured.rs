//! Measured figures in the prose: each one links the measurement file it
//! comes from, and must be in that file as printed there.
//!
//! A figure that the book quotes from a measurement is written as a Markdown
//! link to the file that holds it:
//!
//! ```markdown
//! a graph launch took [3.23 µs](measurements/graphs_replay.txt) of CPU time
//! ```
//!
//! (from a page of `appendix/`, `../measurements/graphs_replay.txt`). mdBook
//! copies the measurement files into the site, so the figure is a link to
//! the run it comes from, and a reader is one click from the full output,
//! its command, device, commit and date. A figure in a table cell is written
//! the same way. Where the file prints a column's unit in its heading rather
//! than after each number, only the number is linked: `[3.23](…) µs`.
//!
//! [`check`] reports, with the chapter's line:
//!
//! * a figure whose text is not in the file it links;
//! * a figure that links a measurement file that does not exist;
//! * a link into `measurements/` whose text holds no digit: such a link
//!   claims a figure, so it must show one (name a file without claiming a
//!   figure as code, `` `measurements/x.txt` ``, or include it).
//!
//! The text is compared after [`normalize`]: `µs` and `us` are one unit,
//! thin and no-break spaces are spaces, `1,024` is `1024`, `×` is `x` and
//! a dash is `-`. It must stand alone in the file: `3.2` is not found in
//! `13.2` nor in `3.25`, and `5 m` not in `5 ms`.
//!
//! Inside HTML (a widget's caption, where Markdown is not parsed) a figure
//! is an HTML link: `<a href="measurements/sampling_overlap.txt">0.98</a>`.
//! The figures are read from the page as written, not from the Markdown
//! that includes bring in.

use crate::links::{attribute_values, is_external, lexical_join};
use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use std::path::{Path, PathBuf};

/// The folder of the book's source folder that holds the measurement files.
pub const FOLDER: &str = "measurements";

/// A figure of a page that links a measurement file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figure {
    /// The line of the page where the link starts, from 1.
    pub line: usize,
    /// The link's text, as the page shows it: `3.23 µs`.
    pub text: String,
    /// The link's target, as written: `measurements/graphs_replay.txt`.
    pub target: String,
}

/// The links of `markdown` (a page of the book whose folder is `dir`, in
/// the source folder `src`) into the measurements folder, with their text
/// and line.
pub fn figures(src: &Path, dir: &Path, markdown: &str) -> Vec<Figure> {
    let mut figures = Vec::new();
    let mut open: Option<Figure> = None;
    for (event, range) in Parser::new_ext(markdown, crate::links::options()).into_offset_iter() {
        match event {
            Event::Start(Tag::Link { dest_url, .. })
                if is_measurement(src, dir, &dest_url).is_some() =>
            {
                let line = markdown[..range.start].matches('\n').count() + 1;
                open = Some(Figure {
                    line,
                    text: String::new(),
                    target: dest_url.to_string(),
                });
            }
            Event::Text(text) | Event::Code(text) => {
                if let Some(figure) = open.as_mut() {
                    figure.text.push_str(&text);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(figure) = open.as_mut() {
                    figure.text.push(' ');
                }
            }
            Event::End(TagEnd::Link) => figures.extend(open.take()),
            Event::Html(html) | Event::InlineHtml(html) => {
                let line = markdown[..range.start].matches('\n').count() + 1;
                if html.trim_start().starts_with("</a") {
                    figures.extend(open.take());
                    continue;
                }
                let (whole, unclosed) = html_links(src, dir, &html, line);
                figures.extend(whole);
                open = open.or(unclosed);
            }
            _ => {}
        }
    }
    figures
}

/// The figures of a piece of HTML that starts on line `line`: its
/// `<a href="…">text</a>` into the measurements folder, the text without
/// its tags; and a last `<a href="…">` into it that the piece does not
/// close (inline HTML: the text and the `</a>` come as their own events).
fn html_links(src: &Path, dir: &Path, html: &str, line: usize) -> (Vec<Figure>, Option<Figure>) {
    let mut figures = Vec::new();
    let mut rest = html;
    let mut offset = 0;
    while let Some(at) = rest.find("<a ") {
        let Some(tag_end) = rest[at..].find('>') else {
            break;
        };
        let tag = &rest[at..at + tag_end + 1];
        let after = at + tag_end + 1;
        let target = attribute_values(tag, "href").into_iter().next();
        let here = line + html[..offset + at].matches('\n').count();
        let Some(target) = target.filter(|t| is_measurement(src, dir, t).is_some()) else {
            offset += after;
            rest = &rest[after..];
            continue;
        };
        let Some(close) = rest[after..].find("</a>") else {
            let text = strip_tags(&rest[after..]);
            return (
                figures,
                Some(Figure {
                    line: here,
                    text,
                    target,
                }),
            );
        };
        figures.push(Figure {
            line: here,
            text: strip_tags(&rest[after..after + close]),
            target,
        });
        offset += after + close;
        rest = &rest[after + close..];
    }
    (figures, None)
}

/// `html` without its tags.
fn strip_tags(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text
}

/// The file a link target names, when it is a `.txt` file of the
/// measurements folder of `src` (the link written in a page of `dir`).
fn is_measurement(src: &Path, dir: &Path, target: &str) -> Option<PathBuf> {
    if is_external(target) {
        return None;
    }
    let path = target.split('#').next().unwrap_or(target);
    let file = lexical_join(dir, path);
    let in_folder = file.parent() == Some(&lexical_join(src, FOLDER));
    (in_folder && file.extension().is_some_and(|e| e == "txt")).then_some(file)
}

/// What is wrong with the measured figures of `markdown`, a page of the
/// book whose folder is `dir`, in the source folder `src`: one message per
/// figure, naming its line, its text and its file.
pub fn check(src: &Path, dir: &Path, markdown: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for figure in figures(src, dir, markdown) {
        let Figure { line, text, target } = &figure;
        let Some(file) = is_measurement(src, dir, target) else {
            continue;
        };
        if !text.chars().any(|c| c.is_ascii_digit()) {
            problems.push(format!(
                "line {line}: the link `{text}` to `{target}` shows no figure: a link into `{FOLDER}/` \
                 claims one, so link the figure itself, or name the file as code"
            ));
            continue;
        }
        match std::fs::read_to_string(&file) {
            Err(_) => problems.push(format!(
                "line {line}: the figure `{text}` links `{target}`, which does not exist: \
                 link the measurement file the figure comes from"
            )),
            Ok(measured) if !occurs(text, &measured) => problems.push(format!(
                "line {line}: the figure `{text}` is not in `{target}`: copy it from the file \
                 as the file prints it, or measure again and update the sentence"
            )),
            Ok(_) => {}
        }
    }
    problems
}

/// `text` with the spellings a figure may take made one: `µ` and `μ` are
/// `u`, every kind of space one space, a comma between digits dropped, `×`
/// an `x`, dashes and the minus sign `-`.
pub fn normalize(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let digit_at = |j: Option<usize>| {
            j.and_then(|j| chars.get(j))
                .is_some_and(char::is_ascii_digit)
        };
        match c {
            'µ' | 'μ' => out.push('u'),
            '×' => out.push('x'),
            '–' | '—' | '−' => out.push('-'),
            ',' if digit_at(i.checked_sub(1)) && digit_at(Some(i + 1)) => {}
            c if c.is_whitespace() => {
                if !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// Whether the figure `text` stands in `file` (both normalized): found, and
/// neither glued to a digit or a decimal point before it nor to more digits
/// or letters after it.
pub fn occurs(text: &str, file: &str) -> bool {
    let (needle, haystack) = (normalize(text.trim()), normalize(file));
    if needle.is_empty() {
        return false;
    }
    haystack.match_indices(&needle).any(|(at, _)| {
        let before = haystack[..at].chars().next_back();
        let mut after = haystack[at + needle.len()..].chars();
        let (next, then) = (after.next(), after.next());
        let first = needle.chars().next().unwrap_or(' ');
        let last = needle.chars().next_back().unwrap_or(' ');
        let glued_before =
            first.is_ascii_digit() && before.is_some_and(|c| c.is_ascii_digit() || c == '.');
        let glued_after = if last.is_ascii_digit() {
            next.is_some_and(|c| c.is_ascii_digit())
                || (next == Some('.') && then.is_some_and(|c| c.is_ascii_digit()))
        } else {
            last.is_alphanumeric() && next.is_some_and(char::is_alphanumeric)
        };
        !glued_before && !glued_after
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_of_one_figure_are_one() {
        assert_eq!(normalize("3.23\u{2009}µs"), "3.23 us");
        assert_eq!(normalize("3.23\u{a0}μs"), "3.23 us");
        assert_eq!(normalize("1,022,976 of 1,024"), "1022976 of 1024");
        assert_eq!(normalize("a, b"), "a, b");
        assert_eq!(normalize("64 × 256,  2.81–5.02"), "64 x 256, 2.81-5.02");
    }

    #[test]
    fn a_figure_must_stand_alone_in_the_file() {
        let file = "submit 3.23 us (2.81–5.02 us), 13.2 ms, 1,024 sums, 5 ms\n";
        for found in [
            "3.23 µs",
            "3.23",
            "2.81–5.02 µs",
            "13.2 ms",
            "1024",
            "1,024 sums",
            "5 ms",
        ] {
            assert!(occurs(found, file), "`{found}` is in the file");
        }
        for missing in [
            "3.2", "3.24 µs", "13.2 us", "3.2 ms", "1,02", "5 m", "2 ms", "23 us", "",
        ] {
            assert!(!occurs(missing, file), "`{missing}` is not in the file");
        }
    }

    /// A book in a temporary folder: `src/measurements/run.txt` holds
    /// `contents`; returns the folder (kept alive) and `src`.
    fn book(contents: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(src.join("measurements")).unwrap();
        std::fs::create_dir_all(src.join("appendix")).unwrap();
        std::fs::write(src.join("measurements/run.txt"), contents).unwrap();
        (dir, src)
    }

    #[test]
    fn figures_are_the_links_into_the_measurements_folder() {
        let (_dir, src) = book("");
        let page = "Intro.\n\nA launch took [3.23 µs](measurements/run.txt), see\n\
                    [the chapter](other.md) and [1.5 ms](https://example.com/x.txt).\n\n\
                    | what | time |\n|---|---|\n| sync | [**19.9** ms](measurements/run.txt) |\n";
        let found = figures(&src, &src, page);
        assert_eq!(
            found,
            [
                Figure {
                    line: 3,
                    text: "3.23 µs".into(),
                    target: "measurements/run.txt".into()
                },
                Figure {
                    line: 8,
                    text: "19.9 ms".into(),
                    target: "measurements/run.txt".into()
                }
            ]
        );
        let appendix = "[3.23 µs](../measurements/run.txt) [4 µs](measurements/run.txt)";
        let found = figures(&src, &src.join("appendix"), appendix);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].target, "../measurements/run.txt");
    }

    #[test]
    fn figures_in_html_are_its_links_into_the_folder() {
        let (_dir, src) = book("");
        let page = "Text.\n\n<div class=\"caption\">Measured: <a href=\"#later\">see</a>, \
                    <a href=\"measurements/run.txt\">0.98</a> and\n\
                    <a href=\"measurements/run.txt\"><b>2.04</b> ms</a>.</div>\n\n\
                    Inline <a href=\"measurements/run.txt\">3.23 µs</a> too.\n";
        let found: Vec<(usize, String)> = figures(&src, &src, page)
            .into_iter()
            .map(|f| (f.line, f.text))
            .collect();
        assert_eq!(
            found,
            [
                (3, "0.98".to_string()),
                (4, "2.04 ms".to_string()),
                (6, "3.23 µs".to_string())
            ]
        );
    }

    #[test]
    fn a_figure_in_its_file_passes() {
        let (_dir, src) = book("command: x\n\nlaunch   3.23 µs\nsums     1,024\n");
        let page =
            "It took [3.23 us](measurements/run.txt) and summed [1,024](measurements/run.txt).\n";
        assert_eq!(check(&src, &src, page), Vec::<String>::new());
    }

    #[test]
    fn a_wrong_figure_is_reported_with_its_line_text_and_file() {
        let (_dir, src) = book("launch   3.23 µs\n");
        let page = "# Launches\n\nOne launch took\n[3.24 µs](measurements/run.txt) of CPU.\n";
        let problems = check(&src, &src, page);
        assert_eq!(problems.len(), 1, "{problems:?}");
        let problem = &problems[0];
        assert!(problem.starts_with("line 4: "), "{problem}");
        assert!(problem.contains("`3.24 µs`"), "{problem}");
        assert!(problem.contains("`measurements/run.txt`"), "{problem}");
    }

    #[test]
    fn a_figure_linking_a_missing_file_is_reported() {
        let (_dir, src) = book("launch   3.23 µs\n");
        let page = "It took [3.23 µs](measurements/gone.txt).\n";
        let problems = check(&src, &src, page);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("line 1: ")
                && problems[0].contains("`measurements/gone.txt`, which does not exist"),
            "{problems:?}"
        );
    }

    #[test]
    fn a_link_into_the_folder_without_a_figure_is_reported() {
        let (_dir, src) = book("launch   3.23 µs\n");
        let page = "See [the run](measurements/run.txt).\n";
        let problems = check(&src, &src, page);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("shows no figure"), "{problems:?}");
    }
}
