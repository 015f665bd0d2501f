//! Relative links and images of a chapter, and the heading ids they aim at.
//!
//! A link is checked in the chapter as mdBook renders it, includes expanded
//! (mdBook does not rewrite links in included text, so they are relative to
//! the chapter). Links with a scheme (`https:`, `mailto:`) are left alone.
//! A relative link must name a file inside the book's source folder (the site
//! has nothing else); a `.html` link stands for its `.md` page; a
//! `#fragment` must be an id of the target page: a heading's id, made the
//! way mdBook makes it, or an `id="..."` of the page's own HTML.

use crate::include;
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};

/// What a page refers to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct References {
    /// Link targets, as written.
    pub links: Vec<String>,
    /// Image sources, as written.
    pub images: Vec<String>,
    /// Every id the page defines.
    pub ids: BTreeSet<String>,
}

/// The Markdown extensions mdBook turns on.
pub(crate) fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
}

/// mdBook's `normalize_id`: alphanumerics, `_` and `-` kept (lowercased),
/// whitespace made `-`, the rest dropped.
pub fn normalize_id(text: &str) -> String {
    text.trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The values of `attr="..."` (or single-quoted) in a piece of HTML.
pub(crate) fn attribute_values(html: &str, attr: &str) -> Vec<String> {
    let mut values = Vec::new();
    let lower = html.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find(&format!("{attr}=")) {
        let start = from + at;
        from = start + attr.len() + 1;
        let before = lower[..start].chars().last();
        if before.is_some_and(|c| !c.is_whitespace()) {
            continue;
        }
        let rest = &html[from..];
        let Some(quote) = rest.chars().next().filter(|q| *q == '"' || *q == '\'') else {
            continue;
        };
        if let Some(len) = rest[1..].find(quote) {
            values.push(rest[1..1 + len].to_string());
        }
    }
    values
}

/// The links, images and ids of a chapter's expanded Markdown.
pub fn references(markdown: &str) -> References {
    let mut refs = References::default();
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut heading: Option<(Option<String>, String)> = None;
    for event in Parser::new_ext(markdown, options()) {
        match event {
            Event::Start(Tag::Link { dest_url, .. }) => refs.links.push(dest_url.to_string()),
            Event::Start(Tag::Image { dest_url, .. }) => refs.images.push(dest_url.to_string()),
            Event::Start(Tag::Heading { id, .. }) => {
                heading = Some((id.map(|i| i.to_string()), String::new()));
            }
            Event::Text(text) | Event::Code(text) => {
                if let Some((_, content)) = heading.as_mut() {
                    content.push_str(&text);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((explicit, content)) = heading.take() {
                    let id = explicit.unwrap_or_else(|| {
                        let base = normalize_id(&content);
                        let seen = counts.entry(base.clone()).or_insert(0);
                        let id = if *seen == 0 {
                            base.clone()
                        } else {
                            format!("{base}-{seen}")
                        };
                        *seen += 1;
                        id
                    });
                    refs.ids.insert(id);
                }
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                refs.ids.extend(attribute_values(&html, "id"));
                refs.links.extend(attribute_values(&html, "href"));
                refs.images.extend(attribute_values(&html, "src"));
            }
            _ => {}
        }
    }
    refs
}

/// Whether a target leaves the book (a scheme such as `https:` or `mailto:`).
pub fn is_external(target: &str) -> bool {
    let scheme_end = target.find(':');
    let path_start = target.find(['/', '#', '?']).unwrap_or(target.len());
    target.starts_with("//") || scheme_end.is_some_and(|c| c < path_start)
}

/// Decodes `%XX` escapes.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `base.join(relative)` with `.` and `..` resolved, without the file system.
pub fn lexical_join(base: &Path, relative: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for component in base.join(relative).components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The ids of a Markdown page of the book, includes expanded.
fn page_ids(file: &Path) -> Option<BTreeSet<String>> {
    let raw = std::fs::read_to_string(file).ok()?;
    let expanded = include::expand(&raw, file.parent()?, &mut Vec::new());
    Some(references(&expanded).ids)
}

/// What a page's targets are checked against.
struct Context<'a> {
    /// The book's source folder.
    src: &'a Path,
    /// The page.
    file: &'a Path,
    /// The page's own ids.
    ids: &'a BTreeSet<String>,
    /// The chapters `SUMMARY.md` lists (a missing one is mdBook's to report).
    planned: &'a BTreeSet<PathBuf>,
}

/// Checks one relative target of a page; `None` when it is fine.
fn check_target(cx: &Context<'_>, target: &str, what: &str) -> Option<String> {
    let Context {
        src,
        file,
        ids,
        planned,
    } = *cx;
    let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
    let path = percent_decode(path.split('?').next().unwrap_or(""));
    if path.is_empty() {
        return (!fragment.is_empty() && !ids.contains(fragment)).then(|| {
            format!("{what} `{target}`: this page has no heading or id `{fragment}`; fix the anchor (mdBook makes a heading's id from its text: lowercase, spaces as `-`)")
        });
    }
    if path.starts_with('/') {
        return Some(format!(
            "{what} `{target}` is absolute; make it relative to this file, so that it works wherever the book is served"
        ));
    }
    let mut resolved = lexical_join(file.parent().unwrap_or(src), &path);
    if !resolved.starts_with(src) {
        return Some(format!(
            "{what} `{target}` points outside the book's source folder `{}`, which mdBook does not copy, so it is dead on the site; link to a page of the book or an https address",
            src.display()
        ));
    }
    if !resolved.exists() && resolved.extension().is_some_and(|e| e == "html") {
        resolved.set_extension("md");
    }
    if !resolved.exists() && planned.contains(&resolved) {
        return None;
    }
    if !resolved.exists() {
        return Some(format!(
            "{what} `{target}`: there is no file `{path}` (relative to this file); fix the path"
        ));
    }
    if fragment.is_empty() || resolved.extension().is_none_or(|e| e != "md") {
        return None;
    }
    let target_ids = page_ids(&resolved).unwrap_or_default();
    (!target_ids.contains(fragment)).then(|| {
        format!("{what} `{target}`: `{path}` has no heading or id `{fragment}`; fix the anchor (mdBook makes a heading's id from its text: lowercase, spaces as `-`)")
    })
}

/// Every broken relative link or image of `file` (whose expanded text is
/// `expanded`); `planned` are the chapters `SUMMARY.md` lists.
pub fn check(src: &Path, file: &Path, expanded: &str, planned: &BTreeSet<PathBuf>) -> Vec<String> {
    let refs = references(expanded);
    let cx = Context {
        src,
        file,
        ids: &refs.ids,
        planned,
    };
    let mut messages = Vec::new();
    for link in refs.links.iter().filter(|l| !is_external(l)) {
        messages.extend(check_target(&cx, link, "link"));
    }
    let empty = BTreeSet::new();
    let images = Context {
        planned: &empty,
        ..cx
    };
    for image in refs.images.iter().filter(|i| !is_external(i)) {
        let image = image.split('#').next().unwrap_or("");
        messages.extend(check_target(&images, image, "image"));
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn makes_heading_ids_like_mdbook() {
        let md = "# Hidden sync points\n## `record_stream` on the GPU\n## A, b & c?\n## Notes\n## Notes\n## Own {#mine}\n<a id=\"raw\"></a>\n";
        let ids: Vec<_> = references(md).ids.into_iter().collect();
        assert_eq!(
            ids,
            [
                "a-b--c",
                "hidden-sync-points",
                "mine",
                "notes",
                "notes-1",
                "raw",
                "record_stream-on-the-gpu"
            ]
        );
    }

    #[test]
    fn collects_markdown_and_html_references() {
        let md =
            "[a](x.md#y) ![i](f.svg) <img src=\"g.png\"> <a href='h.md'>h</a> [w](https://e.org)";
        let refs = references(md);
        assert_eq!(refs.links, ["x.md#y", "h.md", "https://e.org"]);
        assert_eq!(refs.images, ["f.svg", "g.png"]);
    }

    #[test]
    fn tells_external_from_relative() {
        assert!(is_external("https://a.b/c"));
        assert!(is_external("mailto:x@y"));
        assert!(is_external("//cdn/x.js"));
        assert!(!is_external("a.md#b:c"));
        assert!(!is_external("#x"));
        assert!(!is_external("../a/b.md"));
    }

    #[test]
    fn joins_lexically_and_decodes() {
        assert_eq!(
            lexical_join(Path::new("/b/c"), "../d/./e.md"),
            PathBuf::from("/b/d/e.md")
        );
        assert_eq!(percent_decode("a%20b"), "a b");
        assert_eq!(percent_decode("100%"), "100%");
    }
}
