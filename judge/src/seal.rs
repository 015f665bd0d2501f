//! The course's seal: a checksum of every file of its `judge/`,
//! `solutions/` and `exercises/` folders, taken before grading and checked
//! after each submission, so that a submission that changed the course
//! (which the sandbox prevents; this catches what gets past it, and what
//! `--no-sandbox` lets through) stops grading before it can change the
//! grades of the submissions after it.

use crate::course::Course;
use crate::files::sha256_hex;
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

/// The folders sealed.
const SEALED: [&str; 3] = ["judge", "solutions", "exercises"];

/// Every sealed file (and link) and the SHA-256 of its content (or target).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Seal {
    files: BTreeMap<PathBuf, String>,
}

impl Seal {
    /// The seal of `course` as it is now.
    pub(crate) fn of(course: &Course) -> Result<Self> {
        let mut files = BTreeMap::new();
        for folder in SEALED {
            let dir = course.root.join(folder);
            if dir.is_dir() {
                seal_folder(&course.root, &dir, &mut files)?;
            }
        }
        Ok(Self { files })
    }

    /// One SHA-256 of every sealed file and its digest: the same for two
    /// copies of a course wherever they are.
    pub(crate) fn digest(&self) -> String {
        let lines: Vec<String> = self
            .files
            .iter()
            .map(|(path, digest)| format!("{} {digest}", path.display()))
            .collect();
        sha256_hex(lines.join("\n").as_bytes())
    }

    /// Fails, naming what changed, unless `course` is as it was sealed.
    pub(crate) fn check(&self, course: &Course, after: &str) -> Result<()> {
        let now = Self::of(course)?;
        let changed: Vec<String> = self
            .files
            .keys()
            .chain(now.files.keys())
            .filter(|path| self.files.get(*path) != now.files.get(*path))
            .map(|path| format!("`{}`", path.display()))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        if changed.is_empty() {
            return Ok(());
        }
        bail!(
            "the course changed while `{after}` was graded ({}); grading stopped, so that no later grade depends on it: restore the course (`git status` in `{}` shows the change) and grade again",
            list(&changed),
            course.root.display()
        )
    }
}

/// The first few of `names`, and how many more.
fn list(names: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut text = names
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        text.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    text
}

/// Adds every file beneath `dir` (but build output: `target/` folders) to `files`.
fn seal_folder(root: &Path, dir: &Path, files: &mut BTreeMap<PathBuf, String>) -> Result<()> {
    let walk = WalkDir::new(dir).sort_by_file_name().into_iter();
    for entry in walk.filter_entry(|e| !(e.file_type().is_dir() && e.file_name() == "target")) {
        let entry = entry.with_context(|| format!("cannot read `{}`", dir.display()))?;
        let relative = entry
            .path()
            .strip_prefix(root)
            .expect("under the course")
            .to_path_buf();
        let kind = entry.file_type();
        let digest = if kind.is_symlink() {
            let target = fs_err::read_link(entry.path())?;
            sha256_hex(target.as_os_str().as_encoded_bytes())
        } else if kind.is_file() {
            sha256_hex(&fs_err::read(entry.path())?)
        } else {
            continue;
        };
        files.insert(relative, digest);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_added_or_removed_file_breaks_the_seal_and_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in [
            "judge/checks/ex1.rs",
            "solutions/1-x/src/lib.rs",
            "exercises/info.toml",
        ] {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), file).unwrap();
        }
        std::fs::create_dir_all(root.join("exercises/1-x/target")).unwrap();
        let course = crate::course::tests_support::course_at(root);
        let seal = Seal::of(&course).unwrap();
        std::fs::write(root.join("exercises/1-x/target/built"), "ignored").unwrap();
        seal.check(&course, "ada").unwrap();
        std::fs::write(root.join("judge/checks/ex1.rs"), "always passes").unwrap();
        std::fs::write(root.join("solutions/new.rs"), "").unwrap();
        let err = seal.check(&course, "eve").unwrap_err().to_string();
        assert!(
            err.starts_with("the course changed while `eve` was graded (`judge/checks/ex1.rs`, `solutions/new.rs`); grading stopped"),
            "{err}"
        );
    }
}
