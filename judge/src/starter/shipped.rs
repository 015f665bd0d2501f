//! The starters as the course ships them: `exercises/starters.toml` names
//! every file of every exercise's starter by its git blob id, the SHA-1 of
//! `blob LEN\0` and the file's bytes (what `git hash-object` prints).
//!
//! A blob id is the file's content, not a commit: a learner's repository
//! made from the course (a clone, a fork, a GitHub Classroom copy whose
//! history is squashed into one commit) holds the same blobs under the same
//! ids whatever they commit later, so `judge reset` can put back the starter
//! as shipped even after the learner committed their solution over it.
//!
//! The record's files are every file of the exercise's folder but its
//! `target/` and its `Cargo.lock` (build outputs, which reset leaves alone).
//! `judge verify --record-starters` writes the record; `judge verify` checks
//! that it matches the folders, so CI finds a starter changed without it.

use crate::course::Course;
use crate::manifest::Exercise;
use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use walkdir::WalkDir;

/// Where the record is, from the course folder.
pub(crate) const FILE: &str = "exercises/starters.toml";

/// The record's format version.
const FORMAT: u32 = 1;

/// What the record's header says.
const HEADER: &str = "\
# The starters as the course ships them: what `judge reset ID` puts back,
# whatever a learner committed since. Each file of an exercise's folder (but
# its target/ and Cargo.lock) is named by its git blob id, the id
# `git hash-object FILE` prints, which every copy of the course's
# repository holds.
#
# Written by `judge verify --record-starters`; `judge verify` checks it
# against the folders. Do not edit it by hand.
";

/// A git blob id: 40 lowercase hexadecimal digits.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub(crate) struct BlobId(String);

impl BlobId {
    /// The id git gives a file with these bytes.
    pub(crate) fn of(bytes: &[u8]) -> Self {
        let mut sha = sha1_smol::Sha1::new();
        sha.update(format!("blob {}\0", bytes.len()).as_bytes());
        sha.update(bytes);
        Self(sha.digest().to_string())
    }
}

impl TryFrom<String> for BlobId {
    type Error = String;

    fn try_from(id: String) -> Result<Self, String> {
        let hex = |c: char| c.is_ascii_digit() || ('a'..='f').contains(&c);
        match id.len() == 40 && id.chars().all(hex) {
            true => Ok(Self(id)),
            false => Err(format!(
                "`{id}` is not a git blob id (40 lowercase hexadecimal digits)"
            )),
        }
    }
}

impl From<BlobId> for String {
    fn from(id: BlobId) -> Self {
        id.0
    }
}

impl std::fmt::Display for BlobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One exercise's starter: each file's path in its folder (with `/`) and
/// its blob id.
pub(crate) type Files = BTreeMap<String, BlobId>;

/// The record as its file has it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Record {
    /// The format version.
    format: u32,
    /// Each exercise's starter, by id (`"101"`).
    starter: BTreeMap<String, Files>,
}

/// The starter files of `dir`, each with its blob id: every file but
/// `target/` and `Cargo.lock` at the top. A link is refused: a starter
/// holds plain files only.
pub(crate) fn of_folder(dir: &Path) -> Result<Files> {
    let mut files = Files::new();
    for (path, full) in files_of(dir)? {
        let kind = fs_err::symlink_metadata(&full)?.file_type();
        if !kind.is_file() {
            bail!(
                "`{}` is a link: a starter holds plain files only; replace it by the file",
                full.display()
            );
        }
        files.insert(path, BlobId::of(&fs_err::read(&full)?));
    }
    Ok(files)
}

/// Whether `entry` is a build output reset leaves alone: `target/` or
/// `Cargo.lock`, at the top of the crate.
pub(crate) fn is_build_output(entry: &walkdir::DirEntry) -> bool {
    entry.depth() == 1 && matches!(entry.file_name().to_str(), Some("target" | "Cargo.lock"))
}

/// Every file and link of `dir` (build outputs left out): its path in the
/// folder with `/`, and its full path.
pub(crate) fn files_of(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut found = Vec::new();
    let walk = WalkDir::new(dir).min_depth(1).sort_by_file_name();
    for entry in walk.into_iter().filter_entry(|e| !is_build_output(e)) {
        let entry = entry.with_context(|| format!("cannot read `{}`", dir.display()))?;
        if entry.file_type().is_dir() {
            continue;
        }
        let relative = entry.path().strip_prefix(dir).expect("under the folder");
        let path: Vec<_> = relative.iter().map(|p| p.to_string_lossy()).collect();
        found.push((path.join("/"), entry.path().to_path_buf()));
    }
    Ok(found)
}

/// The record of the course, read.
pub(crate) fn load(course: &Course) -> Result<BTreeMap<String, Files>> {
    let path = course.root.join(FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "`{FILE}` is missing, so the judge cannot tell what the starter code was; \
             nothing was changed. Get it back with `git checkout origin/HEAD -- {FILE}` \
             (or from a fresh copy of the course)"
        ),
        Err(e) => return Err(e).with_context(|| format!("cannot read `{}`", path.display())),
    };
    let record: Record = toml::from_str(&text).with_context(|| {
        format!("`{FILE}` is not a record of the starters; nothing was changed. Put back the course's own with `git checkout origin/HEAD -- {FILE}`")
    })?;
    if record.format != FORMAT {
        bail!(
            "`{FILE}` has format {}, and this judge reads format {FORMAT}: update the course (`git pull`)",
            record.format
        );
    }
    Ok(record.starter)
}

/// The recorded starter of `exercise`.
pub(crate) fn recorded(course: &Course, exercise: &Exercise) -> Result<Files> {
    let mut all = load(course)?;
    all.remove(&exercise.id.to_string()).with_context(|| {
        format!(
            "`{FILE}` has no starter for exercise {}, so the judge cannot tell what it was; \
             nothing was changed. Put back the course's own record with \
             `git checkout origin/HEAD -- {FILE}`",
            exercise.id
        )
    })
}

/// Writes the record of every exercise's folder as it is; how many.
pub(crate) fn record(course: &Course) -> Result<usize> {
    let mut starter = BTreeMap::new();
    for exercise in &course.manifest.exercises {
        let files = of_folder(&course.exercise_dir(exercise))?;
        starter.insert(exercise.id.to_string(), files);
    }
    let count = starter.len();
    let record = Record {
        format: FORMAT,
        starter,
    };
    let text = format!("{HEADER}\n{}", toml::to_string(&record)?);
    fs_err::write(course.root.join(FILE), text)?;
    Ok(count)
}

/// What is wrong with the record, as the gate says it: nothing when every
/// exercise's folder is what the record says.
pub(crate) fn problems(course: &Course) -> Vec<String> {
    let redo = format!("run `judge verify --record-starters` and commit `{FILE}` with it");
    let mut recorded = match load(course) {
        Ok(recorded) => recorded,
        Err(err) => return vec![format!("{err:#}; if the course is yours, {redo}")],
    };
    let mut problems = Vec::new();
    for exercise in &course.manifest.exercises {
        let id = exercise.id;
        let Some(files) = recorded.remove(&id.to_string()) else {
            problems.push(format!("{id}: `{FILE}` has no starter for it: {redo}"));
            continue;
        };
        match of_folder(&course.exercise_dir(exercise)) {
            Ok(found) if found == files => {}
            Ok(found) => problems.push(format!(
                "{id}: the starter is not what `{FILE}` records ({}): if that change is meant, {redo}",
                differences(&files, &found).join(", ")
            )),
            Err(err) => problems.push(format!("{id}: {err:#}")),
        }
    }
    for id in recorded.keys() {
        problems.push(format!(
            "`{FILE}` records a starter for {id}, which the manifest does not list: {redo}"
        ));
    }
    problems
}

/// How `found` differs from `recorded`, file by file.
fn differences(recorded: &Files, found: &Files) -> Vec<String> {
    let mut said = Vec::new();
    for (path, id) in found {
        match recorded.get(path) {
            None => said.push(format!("`{path}` is new")),
            Some(was) if was != id => said.push(format!("`{path}` changed")),
            Some(_) => {}
        }
    }
    for path in recorded.keys().filter(|p| !found.contains_key(*p)) {
        said.push(format!("`{path}` is gone"));
    }
    said
}

/// The bytes of each file of `files`, from the git repository at `root`.
pub(crate) fn fetch(root: &Path, files: &Files) -> Result<BTreeMap<String, Vec<u8>>> {
    let ids: String = files.values().map(|id| format!("{id}\n")).collect();
    let mut git = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context(
            "cannot run `git`; `judge reset` needs git to find the starter code: install git",
        )?;
    let mut stdin = git.stdin.take().expect("piped");
    let writer = std::thread::spawn(move || stdin.write_all(ids.as_bytes()));
    let mut out = Vec::new();
    git.stdout.take().expect("piped").read_to_end(&mut out)?;
    let mut err = String::new();
    git.stderr.take().expect("piped").read_to_string(&mut err)?;
    let status = git.wait()?;
    let _ = writer.join();
    if !status.success() {
        bail!(
            "`git cat-file` failed in `{}`: {}",
            root.display(),
            err.trim()
        );
    }
    parse_batch(&out, files)
}

/// The blobs of a `git cat-file --batch` answer, in the order of `files`.
fn parse_batch(mut out: &[u8], files: &Files) -> Result<BTreeMap<String, Vec<u8>>> {
    let mut contents = BTreeMap::new();
    for (path, id) in files {
        let line_end = out
            .iter()
            .position(|&b| b == b'\n')
            .context("`git cat-file` ended early")?;
        let header = String::from_utf8_lossy(&out[..line_end]).into_owned();
        out = &out[line_end + 1..];
        let size = match header.split(' ').collect::<Vec<_>>()[..] {
            [_, "blob", size] => size.parse::<usize>().ok(),
            _ => None,
        };
        let Some(size) = size.filter(|&size| out.len() > size) else {
            bail!(
                "git does not have the starter's `{path}` (blob {id}, which `{FILE}` records); \
                 nothing was changed. Fetch the course's history (`git fetch origin`), or copy \
                 the exercise's folder from a fresh copy of the course"
            );
        };
        let bytes = out[..size].to_vec();
        out = &out[size + 1..];
        if BlobId::of(&bytes) != *id {
            bail!("git gave `{path}` bytes whose id is not {id}; nothing was changed");
        }
        contents.insert(path.clone(), bytes);
    }
    Ok(contents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_ids_are_the_ones_git_gives() {
        // `printf '' | git hash-object --stdin`, and the same of `hello`.
        assert_eq!(
            BlobId::of(b"").to_string(),
            "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
        );
        assert_eq!(
            BlobId::of(b"hello").to_string(),
            "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0"
        );
    }

    #[test]
    fn a_blob_id_is_forty_lowercase_hex_digits() {
        assert!(BlobId::try_from("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391".to_string()).is_ok());
        for bad in ["", "e69de29", "E69DE29BB2D1D6434B8B29AE775AD8C2E48C5391"] {
            assert!(BlobId::try_from(bad.to_string()).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_batch_answer_gives_each_blob_and_a_missing_one_is_named() {
        let files: Files = [
            ("a.rs".to_string(), BlobId::of(b"hello")),
            ("b.rs".to_string(), BlobId::of(b"")),
        ]
        .into();
        let ok = format!(
            "{} blob 5\nhello\n{} blob 0\n\n",
            BlobId::of(b"hello"),
            BlobId::of(b"")
        );
        let got = parse_batch(ok.as_bytes(), &files).unwrap();
        assert_eq!(got["a.rs"], b"hello");
        assert_eq!(got["b.rs"], b"");
        let missing = format!(
            "{} blob 5\nhello\n{} missing\n",
            BlobId::of(b"hello"),
            BlobId::of(b"")
        );
        let err = parse_batch(missing.as_bytes(), &files)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("git does not have the starter's `b.rs`"),
            "{err}"
        );
        let forged = format!("{} blob 5\nhullo\n", BlobId::of(b"hello"));
        let err = parse_batch(forged.as_bytes(), &files)
            .unwrap_err()
            .to_string();
        assert!(err.contains("whose id is not"), "{err}");
    }

    #[test]
    fn differences_name_each_file() {
        let a: Files = [
            ("x".to_string(), BlobId::of(b"1")),
            ("y".to_string(), BlobId::of(b"2")),
        ]
        .into();
        let b: Files = [
            ("x".to_string(), BlobId::of(b"3")),
            ("z".to_string(), BlobId::of(b"2")),
        ]
        .into();
        assert_eq!(
            differences(&a, &b),
            ["`x` changed", "`z` is new", "`y` is gone"]
        );
    }
}
