//! A copy of the book that mdBook can build from whatever chapters exist.
//!
//! `book.toml` sets `create-missing = false`, so `mdbook build` fails while a
//! chapter that `SUMMARY.md` lists is not written yet; that is the build
//! `.ci/run` runs, and it must fail then. The browser test checks what the
//! written pages look like, so it builds a *shadow* of the repository: a
//! folder of symbolic links to every top-level entry of the repository, with
//! its own source folder whose `SUMMARY.md` leaves out the missing chapters.
//! The chapters themselves are links, so their includes (`../solutions/...`)
//! resolve through the shadow's links to the same files.

use std::path::{Path, PathBuf};

/// The shadow's source folder lists only existing chapters; these were left out.
#[derive(Debug, Default)]
pub struct Shadow {
    /// The shadow repository (holding `book.toml`).
    pub root: PathBuf,
    /// Chapter files `SUMMARY.md` lists that do not exist.
    pub missing: Vec<String>,
}

/// The `.md` target of a `SUMMARY.md` line, if it has one.
fn summary_target(line: &str) -> Option<&str> {
    let start = line.find("](")? + 2;
    let end = start + line[start..].find(')')?;
    let target = &line[start..end];
    target.ends_with(".md").then_some(target)
}

/// `summary` without the lines whose chapter file is not in `src`; and those files.
pub fn filter_summary(summary: &str, src: &Path) -> (String, Vec<String>) {
    let mut kept = String::new();
    let mut missing = Vec::new();
    for line in summary.lines() {
        match summary_target(line) {
            Some(target) if !src.join(target).is_file() => missing.push(target.to_string()),
            _ => {
                kept.push_str(line);
                kept.push('\n');
            }
        }
    }
    (kept, missing)
}

#[cfg(unix)]
fn link(from: &Path, to: &Path) -> std::io::Result<()> {
    fs_err::os::unix::fs::symlink(from, to)
}

#[cfg(not(unix))]
fn link(_from: &Path, _to: &Path) -> std::io::Result<()> {
    Err(std::io::Error::other(
        "the shadow book needs symbolic links (Unix)",
    ))
}

/// Makes the shadow of the repository `root` (whose sources are `src`) at `dest`.
pub fn make(root: &Path, src: &Path, dest: &Path) -> Result<Shadow, String> {
    shadow(root, src, dest).map_err(|e| e.to_string())
}

/// [`make`], its errors naming the path they are about (`fs_err`).
fn shadow(root: &Path, src: &Path, dest: &Path) -> std::io::Result<Shadow> {
    let root = fs_err::canonicalize(root)?;
    let src = fs_err::canonicalize(src)?;
    let src_name = src
        .strip_prefix(&root)
        .map_err(|_| std::io::Error::other("the book's sources must be inside the repository"))?;
    if dest.exists() {
        fs_err::remove_dir_all(dest)?;
    }
    let shadow_src = dest.join(src_name);
    fs_err::create_dir_all(&shadow_src)?;
    for entry in fs_err::read_dir(&root)?.flatten() {
        let name = entry.file_name();
        let skip = [".git", "target"].iter().any(|s| name == *s) || src_name.starts_with(&name);
        if !skip {
            link(&entry.path(), &dest.join(&name))?;
        }
    }
    for entry in fs_err::read_dir(&src)?.flatten() {
        if entry.file_name() != "SUMMARY.md" {
            link(&entry.path(), &shadow_src.join(entry.file_name()))?;
        }
    }
    let summary = fs_err::read_to_string(src.join("SUMMARY.md"))?;
    let (kept, missing) = filter_summary(&summary, &src);
    fs_err::write(shadow_src.join("SUMMARY.md"), kept)?;
    Ok(Shadow {
        root: dest.to_path_buf(),
        missing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_out_only_missing_chapters() {
        let dir = std::env::temp_dir().join(format!("book-check-summary-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("appendix")).unwrap();
        std::fs::write(dir.join("here.md"), "# Here").unwrap();
        std::fs::write(dir.join("appendix/a.md"), "# A").unwrap();
        let summary =
            "# Summary\n\n[Here](here.md)\n\n# Part\n\n- [Gone](gone.md)\n- [A](appendix/a.md)\n";
        let (kept, missing) = filter_summary(summary, &dir);
        assert_eq!(
            kept,
            "# Summary\n\n[Here](here.md)\n\n# Part\n\n- [A](appendix/a.md)\n"
        );
        assert_eq!(missing, ["gone.md"]);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
