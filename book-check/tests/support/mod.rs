//! What the browser tests share: finding Chromium and mdBook (a loud skip
//! without them, a failure under CI), and building the book.

use book_check::browser;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The tool, or `None` after a loud note when it is missing outside CI.
fn tool(name: &str, found: Option<PathBuf>, install: &str) -> Option<PathBuf> {
    if found.is_some() {
        return found;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "`{name}` is not installed, and CI must run the browser test: {install}"
    );
    // Written to the process's stderr itself, past libtest's capture, so that
    // the skip shows even when the test passes.
    let bar = "!".repeat(72);
    let _ = writeln!(
        std::io::stderr(),
        "\n{bar}\nSKIPPED: `{name}` is not installed, so the browser test did not run.\n{install}\n{bar}\n"
    );
    None
}

pub(crate) fn chromium() -> Option<PathBuf> {
    tool(
        "chromium",
        browser::chromium(),
        "install it (`apt-get install chromium`) or set CHROMIUM=/path/to/chrome",
    )
}

pub(crate) fn mdbook() -> Option<PathBuf> {
    let found = std::env::var_os("MDBOOK").map(PathBuf::from).or_else(|| {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .map(|d| d.join("mdbook"))
            .find(|p| p.is_file())
    });
    tool(
        "mdbook",
        found,
        "install it: `cargo install mdbook --version 0.4.52 --locked`",
    )
}

/// The book built with mdBook into `target/tmp/book-check/NAME/` (from the
/// chapters that exist, see [`book_check::shadow`]): the site, the pages of
/// `SUMMARY.md`, and the chapters it lists that are not written yet.
pub(crate) fn build_book(mdbook: &Path, name: &str) -> (PathBuf, Vec<String>, Vec<String>) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let src = book_check::source_dir(&repo).expect("book.toml");
    let work = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("book-check")
        .join(name);
    let shadow =
        book_check::shadow::make(&repo, &src, &work.join("shadow")).expect("a shadow of the book");
    if !shadow.missing.is_empty() {
        eprintln!(
            "note: SUMMARY.md lists chapters that are not written yet, left out of this build (`mdbook build` itself fails on them): {}",
            shadow.missing.join(", ")
        );
    }
    let site = work.join("site");
    let output = Command::new(mdbook)
        .arg("build")
        .arg(&shadow.root)
        .arg("--dest-dir")
        .arg(&site)
        .output()
        .expect("mdbook runs");
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "`mdbook build` failed:\n{log}");
    assert!(
        !log.contains("ERROR"),
        "`mdbook build` reported errors:\n{log}"
    );
    let summary = std::fs::read_to_string(shadow.root.join("chapters/SUMMARY.md"))
        .expect("the shadow's SUMMARY.md");
    let pages: Vec<String> = summary
        .lines()
        .filter_map(|l| {
            Some(
                l.split_once("](")?
                    .1
                    .split_once(')')?
                    .0
                    .replace(".md", ".html"),
            )
        })
        .collect();
    (site, pages, shadow.missing)
}
