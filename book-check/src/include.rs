//! mdBook's include directives, expanded the way mdBook expands them.
//!
//! `{{#include FILE}}`, `{{#include FILE:ANCHOR}}` and the line ranges
//! `FILE:N`, `FILE:N:M`, `FILE::M`, `FILE:N:`; `{{#rustdoc_include}}` and
//! `{{#playground}}` take the same paths. A path is relative to the file that
//! holds the directive, and an included file's own directives are relative
//! to it, up to mdBook's depth of 10. An anchor is the text between the lines
//! `ANCHOR: NAME` and `ANCHOR_END: NAME` (any comment syntax around them);
//! other anchors' marker lines inside it are dropped. A directive after a
//! backslash (`\{{#include}}`) is text, not a directive.
//!
//! Expanding also checks the Markdown that an include brings into the page
//! (an exercise's statement, say) for pasted Rust, with [`pasted_rust`],
//! before that Markdown's own includes are expanded.

use std::path::Path;

/// mdBook's limit on nested includes.
const MAX_DEPTH: usize = 10;

/// The directives that take a file.
const FILE_DIRECTIVES: [&str; 3] = ["include", "rustdoc_include", "playground"];

/// One `{{#NAME ARGS}}` directive found in a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    /// Byte range of the whole directive, braces included.
    pub span: std::ops::Range<usize>,
    /// `include`, `rustdoc_include`, `playground`, `title`, ...
    pub name: String,
    /// Everything after the name, trimmed.
    pub args: String,
    /// 1-based line of the directive.
    pub line: usize,
}

/// Every directive of `text`, in order; escaped ones are skipped.
pub fn directives(text: &str) -> Vec<Directive> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(offset) = text[from..].find("{{#") {
        let start = from + offset;
        let Some(close) = text[start..].find("}}") else {
            break;
        };
        let end = start + close + 2;
        from = start + 3;
        if text[..start].ends_with('\\') {
            continue;
        }
        let inner = text[start + 3..end - 2].trim();
        let (name, args) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        found.push(Directive {
            span: start..end,
            name: name.to_string(),
            args: args.trim().to_string(),
            line: text[..start].matches('\n').count() + 1,
        });
        from = end;
    }
    found
}

/// What part of a file a directive takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// All of it.
    Whole,
    /// The text of an anchor.
    Anchor(String),
    /// Lines `start..=end`, 1-based; `None` is open.
    Lines(Option<usize>, Option<usize>),
}

/// Splits a directive's arguments into the path and the part of the file.
pub fn parse_args(args: &str) -> (String, Part) {
    // `{{#playground FILE editable}}`: attributes follow the path.
    let target = args.split_whitespace().next().unwrap_or("");
    let Some((path, rest)) = target.split_once(':') else {
        return (target.to_string(), Part::Whole);
    };
    let number = |s: &str| s.parse::<usize>().ok();
    let part = match rest.split_once(':') {
        None if rest.is_empty() => Part::Whole,
        None => match number(rest) {
            Some(n) => Part::Lines(Some(n), None),
            None => Part::Anchor(rest.to_string()),
        },
        Some((a, b)) => Part::Lines(number(a), number(b)),
    };
    (path.to_string(), part)
}

/// The anchor name on a marker line (`ANCHOR: name`, `ANCHOR_END: name`).
fn marker<'a>(line: &'a str, keyword: &str) -> Option<&'a str> {
    let at = line.find(keyword)?;
    let rest = line[at + keyword.len()..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// The text of anchor `name` in `text`, as mdBook takes it.
///
/// Errors (as a message) when the anchor never opens, or opens and never
/// closes (mdBook would include the rest of the file).
pub fn anchored(text: &str, name: &str) -> Result<String, String> {
    let mut inside = false;
    let mut kept = Vec::new();
    for line in text.lines() {
        let start = marker(line, "ANCHOR:");
        let end = marker(line, "ANCHOR_END:");
        if !inside {
            inside = start == Some(name);
            continue;
        }
        if end == Some(name) {
            return Ok(kept.join("\n"));
        }
        if start.is_none() && end.is_none() {
            kept.push(line);
        }
    }
    if inside {
        Err(format!(
            "anchor `{name}` opens (`ANCHOR: {name}`) but never closes; add `ANCHOR_END: {name}`"
        ))
    } else {
        Err(format!(
            "has no anchor `{name}`; mark the lines with `ANCHOR: {name}` and `ANCHOR_END: {name}`"
        ))
    }
}

/// The part of `text` a directive takes, or why it cannot be taken.
fn take(text: &str, part: &Part) -> Result<String, String> {
    match part {
        Part::Whole => Ok(text.to_string()),
        Part::Anchor(name) => anchored(text, name),
        Part::Lines(start, end) => {
            let lines: Vec<&str> = text.lines().collect();
            let first = start.unwrap_or(1).max(1);
            let last = end.unwrap_or(lines.len()).min(lines.len());
            if first > lines.len() || first > last {
                return Err(format!(
                    "asks for lines {first} to {last}, but the file has {} lines",
                    lines.len()
                ));
            }
            Ok(lines[first - 1..last].join("\n"))
        }
    }
}

/// `text` with every include expanded; faults are pushed onto `messages`.
///
/// `dir` is the folder of the file that holds `text`. A directive that
/// cannot be expanded is left as it is, as mdBook leaves it.
pub fn expand(text: &str, dir: &Path, messages: &mut Vec<String>) -> String {
    expand_at(text, dir, 0, messages)
}

fn expand_at(text: &str, dir: &Path, depth: usize, messages: &mut Vec<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for directive in directives(text) {
        if !FILE_DIRECTIVES.contains(&directive.name.as_str()) {
            continue;
        }
        out.push_str(&text[last..directive.span.start]);
        last = directive.span.end;
        match resolve(&directive, dir) {
            Ok((content, included)) => {
                if included.extension().is_some_and(|e| e == "md") {
                    // Included Markdown (an exercise's statement) becomes part
                    // of the page: its Rust blocks must be includes too.
                    let (path, _) = parse_args(&directive.args);
                    let included_dir = included.parent().unwrap_or(dir);
                    messages.extend(
                        pasted_rust(&content)
                            .into_iter()
                            .chain(mirrored(&content, included_dir))
                            .map(|m| format!("in the included `{path}`, {m}")),
                    );
                }
                let nested_dir = included.parent().unwrap_or(dir);
                if depth + 1 < MAX_DEPTH {
                    out.push_str(&expand_at(&content, nested_dir, depth + 1, messages));
                } else {
                    out.push_str(&content);
                }
            }
            Err(message) => {
                messages.push(message);
                out.push_str(&text[directive.span.clone()]);
            }
        }
    }
    out.push_str(&text[last..]);
    out
}

/// The content and path of the file part a directive names.
fn resolve(directive: &Directive, dir: &Path) -> Result<(String, std::path::PathBuf), String> {
    let (path, part) = parse_args(&directive.args);
    let here = format!(
        "line {}: `{{{{#{} {}}}}}`",
        directive.line, directive.name, directive.args
    );
    if path.is_empty() {
        return Err(format!("{here} names no file"));
    }
    let file = dir.join(&path);
    let text = std::fs::read_to_string(&file).map_err(|_| {
        format!("{here}: the file `{path}` does not exist (relative to this file's folder); fix the path")
    })?;
    let content = take(&text, &part).map_err(|why| format!("{here}: `{path}` {why}"))?;
    Ok((content, file))
}

/// One fenced code block of a Markdown text.
struct CodeBlock {
    /// Its language, the first word of its info string (`rust`, `text`).
    lang: String,
    /// The 1-based line of its opening fence.
    line: usize,
    /// Its code.
    code: String,
    /// The `FILE:ANCHOR` it mirrors, when a `<!-- mirrors FILE:ANCHOR -->`
    /// comment is the line before it.
    mirrors: Option<String>,
}

/// Every fenced code block of `markdown`.
fn code_blocks(markdown: &str) -> Vec<CodeBlock> {
    use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};
    let mut blocks = Vec::new();
    let mut current: Option<CodeBlock> = None;
    for (event, range) in Parser::new(markdown).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let lang = info.split([',', ' ', '\t']).next().unwrap_or("");
                let before = &markdown[..range.start];
                current = Some(CodeBlock {
                    lang: lang.to_string(),
                    line: before.matches('\n').count() + 1,
                    code: String::new(),
                    mirrors: mirror_marker(before),
                });
            }
            Event::Text(text) => {
                if let Some(block) = &mut current {
                    block.code.push_str(&text);
                }
            }
            Event::End(TagEnd::CodeBlock) => blocks.extend(current.take()),
            _ => {}
        }
    }
    blocks
}

/// Every `rust` code block of `markdown` (with any attributes: `rust,ignore`).
fn rust_blocks(markdown: &str) -> Vec<CodeBlock> {
    let mut blocks = code_blocks(markdown);
    blocks.retain(|b| b.lang == "rust");
    blocks
}

/// The `FILE:ANCHOR` of a `<!-- mirrors FILE:ANCHOR -->` comment that is
/// the last line of `before`.
fn mirror_marker(before: &str) -> Option<String> {
    let last = before.trim_end().lines().last()?.trim();
    let inner = last.strip_prefix("<!-- mirrors ")?.strip_suffix("-->")?;
    Some(inner.trim().to_string())
}

/// Rust code blocks of `markdown` that hold pasted code instead of includes.
///
/// A block whose language is `rust` (with any attributes: `rust,ignore`) must
/// hold nothing but include directives, so that every sample is a file cargo
/// compiles, or mirror a file's part ([`mirrored`]: a statement that must
/// read well outside the book too). Other languages (`sh`, `console`,
/// `text`) are free text.
pub fn pasted_rust(markdown: &str) -> Vec<String> {
    let mut messages = Vec::new();
    for block in rust_blocks(markdown)
        .into_iter()
        .filter(|b| b.mirrors.is_none())
    {
        let pasted = block.code.lines().map(str::trim).find(|l| {
            !l.is_empty()
                && !FILE_DIRECTIVES
                    .iter()
                    .any(|d| l.starts_with(&format!("{{{{#{d} ")))
        });
        if let Some(first) = pasted {
            messages.push(format!(
                "line {}: a `rust` code block holds pasted code (`{first}`); put it in a file cargo compiles and include it with `{{{{#include PATH:ANCHOR}}}}`",
                block.line
            ));
        }
    }
    messages
}

/// The mirrored blocks of `markdown` (in a file of the folder `dir`) that
/// differ from what they mirror.
///
/// A Markdown file read outside the book as well as in it (an exercise's
/// statement, which GitHub shows as it is, without mdBook's includes)
/// holds the code itself, after a `<!-- mirrors FILE:ANCHOR -->` comment
/// naming the file part it copies; the block must be exactly that part,
/// which cargo compiles (or, in any language, a file that a program
/// writes: a measurement the README shows).
pub fn mirrored(markdown: &str, dir: &Path) -> Vec<String> {
    let mut messages = Vec::new();
    for block in code_blocks(markdown) {
        let Some(args) = &block.mirrors else {
            continue;
        };
        let directive = Directive {
            span: 0..0,
            name: "include".into(),
            args: args.clone(),
            line: block.line,
        };
        match resolve(&directive, dir) {
            Ok((content, _)) if content.trim_end() == block.code.trim_end() => {}
            Ok(_) => messages.push(format!(
                "line {}: the block mirrors `{args}` and differs from it; copy that part of the file into the block again",
                block.line
            )),
            Err(message) => messages.push(message),
        }
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_directives_and_skips_escaped_ones() {
        let text = "a\n{{#include x.rs:one}}\n\\{{#include y.rs}}\n{{#title T}}";
        let found = directives(text);
        let names: Vec<_> = found
            .iter()
            .map(|d| (d.name.as_str(), d.args.as_str(), d.line))
            .collect();
        assert_eq!(names, [("include", "x.rs:one", 2), ("title", "T", 4)]);
    }

    #[test]
    fn parses_anchors_and_ranges() {
        assert_eq!(parse_args("a.rs"), ("a.rs".into(), Part::Whole));
        assert_eq!(
            parse_args("a.rs:main"),
            ("a.rs".into(), Part::Anchor("main".into()))
        );
        assert_eq!(
            parse_args("a.rs:3"),
            ("a.rs".into(), Part::Lines(Some(3), None))
        );
        assert_eq!(
            parse_args("a.rs:3:5"),
            ("a.rs".into(), Part::Lines(Some(3), Some(5)))
        );
        assert_eq!(
            parse_args("a.rs::5"),
            ("a.rs".into(), Part::Lines(None, Some(5)))
        );
        assert_eq!(parse_args("a.rs editable"), ("a.rs".into(), Part::Whole));
    }

    #[test]
    fn takes_an_anchor_like_mdbook() {
        let text = "x\n// ANCHOR: outer\na\n// ANCHOR: inner\nb\n// ANCHOR_END: inner\n// ANCHOR_END: outer\n";
        assert_eq!(anchored(text, "outer").unwrap(), "a\nb");
        assert_eq!(anchored(text, "inner").unwrap(), "b");
        assert!(
            anchored(text, "inne")
                .unwrap_err()
                .contains("has no anchor `inne`")
        );
        let open = "// ANCHOR: open\nline\n";
        assert!(anchored(open, "open").unwrap_err().contains("never closes"));
    }

    #[test]
    fn flags_pasted_rust_but_not_includes_or_other_languages() {
        let ok = "```rust,ignore\n{{#include a.rs:x}}\n```\n\n```sh\ncargo run\n```\n";
        assert!(pasted_rust(ok).is_empty());
        let pasted = "text\n\n```rust\nfn main() {}\n```\n";
        let messages = pasted_rust(pasted);
        assert_eq!(messages.len(), 1);
        assert!(messages[0].starts_with("line 3:"), "{}", messages[0]);
    }

    #[test]
    fn a_mirrored_block_is_not_pasted_code_and_must_equal_its_part() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("api.rs"),
            "// ANCHOR: api\npub fn f() {}\n// ANCHOR_END: api\n",
        )
        .unwrap();
        let same = "text\n\n<!-- mirrors api.rs:api -->\n```rust,ignore\npub fn f() {}\n```\n";
        assert!(pasted_rust(same).is_empty());
        assert!(mirrored(same, dir.path()).is_empty());
        let stale = same.replace("pub fn f() {}", "pub fn g() {}");
        let messages = mirrored(&stale, dir.path());
        assert_eq!(
            messages,
            [
                "line 4: the block mirrors `api.rs:api` and differs from it; copy that part of the file into the block again"
            ]
        );
        let nowhere = same.replace("api.rs:api", "gone.rs:api");
        assert!(mirrored(&nowhere, dir.path())[0].contains("does not exist"));
    }

    #[test]
    fn a_mirrored_text_block_must_equal_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("times.txt"), "main job 159 s\n").unwrap();
        let same = "<!-- mirrors times.txt -->\n```text\nmain job 159 s\n```\n";
        assert!(mirrored(same, dir.path()).is_empty());
        let retyped = same.replace("159", "150");
        assert_eq!(mirrored(&retyped, dir.path()).len(), 1);
        assert!(
            mirrored("```text\nmain job 150 s\n```\n", dir.path()).is_empty(),
            "a block without the comment is free text"
        );
    }
}
