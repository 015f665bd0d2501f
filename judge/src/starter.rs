//! An exercise's starter code, and putting it back (`judge reset`, and
//! the `x` key of `judge watch`).
//!
//! The starter is the exercise's folder as the course ships it, whatever the
//! learner committed since: [`shipped`] names each of its files by its git
//! blob id in `exercises/starters.toml`, and git gives their bytes. Nothing
//! is lost: before anything is written, the learner's crate (every file,
//! tracked or not, except `target/`) is copied to
//! `.judge-backups/ID-SLUG-<UTC time>/` in the course folder, and when that
//! copy fails (or git cannot give a starter file) nothing changes. Then the
//! starter's files are written and every other file of the crate is removed,
//! its build outputs (`target/`, `Cargo.lock`) left alone. Git's index and
//! history are the learner's and stay as they are: `git status` then shows
//! the reset as a change, to commit or not.

pub(crate) mod shipped;

use crate::course::Course;
use crate::manifest::Exercise;
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

/// What resetting changes in the crate, its paths relative to it.
#[derive(Debug, Default, PartialEq, Eq)]
struct Changes {
    /// Starter files that are missing or differ.
    write: Vec<String>,
    /// Files in the crate that are not part of the starter.
    remove: Vec<String>,
}

/// What putting the starter back did.
#[derive(Debug)]
pub(crate) struct Reset {
    /// The exercise.
    id: u32,
    /// Its folder name, `ID-SLUG`.
    dir_name: String,
    /// Its crate's folder.
    crate_dir: PathBuf,
    /// The backup folder and the number of files in it, if the crate existed.
    backup: Option<(PathBuf, usize)>,
    /// What changed (nothing when the crate already was the starter).
    changes: Changes,
}

impl Reset {
    /// What to tell the learner, line by line: what was backed up, removed
    /// and restored, and how to undo it.
    pub(crate) fn lines(&self) -> Vec<String> {
        let id = self.id;
        if self.changes.write.is_empty() && self.changes.remove.is_empty() {
            return vec![format!(
                "exercise {id} already has its starter code: nothing to do"
            )];
        }
        let dir = format!("exercises/{}", self.dir_name);
        let mut lines = Vec::new();
        if let Some((backup, files)) = &self.backup {
            lines.push(format!(
                "backed up {dir} ({files} files) to {}",
                backup.display()
            ));
        }
        for path in &self.changes.remove {
            lines.push(format!("removed {path}: {ADDED}"));
        }
        for path in &self.changes.write {
            lines.push(format!("restored {path}"));
        }
        lines.push(format!(
            "exercise {id} is back to its starter code as the course ships it; `judge run {id}` checks it"
        ));
        lines.extend(self.undo_lines());
        lines
    }

    /// Where the backup is and how to undo the reset (nothing when there
    /// was no crate to back up).
    pub(crate) fn undo_lines(&self) -> Vec<String> {
        let Some((backup, _)) = &self.backup else {
            return Vec::new();
        };
        vec![format!(
            "to undo the reset: `cp -a {}/. {}/` puts your files back",
            backup.display(),
            self.crate_dir.display()
        )]
    }
}

/// Backs up the crate of `exercise`, then restores its starter code.
pub(crate) fn reset(course: &Course, exercise: &Exercise) -> Result<Reset> {
    let dir_name = exercise.dir_name();
    let crate_dir = course.exercise_dir(exercise);
    let files = shipped::recorded(course, exercise)?;
    if !is_checkout(&course.root) {
        bail!("`{}` {NOT_A_CHECKOUT}", course.root.display());
    }
    let starter = shipped::fetch(&course.root, &files)?;
    let changes = changes(&crate_dir, &starter)?;
    let mut done = Reset {
        id: exercise.id,
        dir_name,
        crate_dir: crate_dir.clone(),
        backup: None,
        changes,
    };
    if done.changes.write.is_empty() && done.changes.remove.is_empty() {
        return Ok(done);
    }
    if crate_dir.exists() {
        done.backup = Some(back_up(&course.root, &crate_dir, &done.dir_name)?);
    }
    restore(&crate_dir, &starter, &done.changes)?;
    Ok(done)
}

/// Whether git sees a repository at `root`.
fn is_checkout(root: &Path) -> bool {
    std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["rev-parse", "--git-dir"])
        .output()
        .is_ok_and(|out| out.status.success())
}

/// What differs between the crate in `dir` and the `starter`: its files
/// that are missing or differ, and the crate's files (or links) that are
/// not part of it, build outputs left out.
fn changes(dir: &Path, starter: &BTreeMap<String, Vec<u8>>) -> Result<Changes> {
    let mut changes = Changes::default();
    for (path, bytes) in starter {
        let full = dir.join(path);
        let same = fs_err::symlink_metadata(&full).is_ok_and(|m| m.is_file())
            && fs_err::read(&full).is_ok_and(|on_disk| on_disk == *bytes);
        if !same {
            changes.write.push(path.clone());
        }
    }
    if dir.exists() {
        for (path, _) in shipped::files_of(dir)? {
            if !starter.contains_key(&path) {
                changes.remove.push(path);
            }
        }
    }
    Ok(changes)
}

/// Writes the starter's files that differ, removes the files that are not
/// part of it, then the folders those leave empty.
fn restore(dir: &Path, starter: &BTreeMap<String, Vec<u8>>, changes: &Changes) -> Result<()> {
    for path in &changes.remove {
        fs_err::remove_file(dir.join(path))?;
    }
    for path in &changes.write {
        let full = dir.join(path);
        match fs_err::symlink_metadata(&full) {
            Ok(m) if m.is_dir() => fs_err::remove_dir_all(&full)?,
            Ok(m) if m.is_symlink() => fs_err::remove_file(&full)?,
            _ => {}
        }
        if let Some(parent) = full.parent() {
            fs_err::create_dir_all(parent)?;
        }
        fs_err::write(&full, &starter[path])?;
    }
    remove_empty_folders(dir)
}

/// Removes the folders under `dir` that hold nothing (build outputs left
/// alone), deepest first.
fn remove_empty_folders(dir: &Path) -> Result<()> {
    let walk = WalkDir::new(dir).min_depth(1).contents_first(true);
    for entry in walk
        .into_iter()
        .filter_entry(|e| !shipped::is_build_output(e))
    {
        let entry = entry.with_context(|| format!("cannot read `{}`", dir.display()))?;
        let empty = || fs_err::read_dir(entry.path()).is_ok_and(|mut d| d.next().is_none());
        if entry.file_type().is_dir() && empty() {
            fs_err::remove_dir(entry.path())?;
        }
    }
    Ok(())
}

/// Whether `entry` is the crate's own `target/` folder.
fn is_target(entry: &walkdir::DirEntry) -> bool {
    entry.depth() == 1 && entry.file_name() == "target" && entry.file_type().is_dir()
}

/// Copies the crate (`target/` left out) to a new folder under
/// `ROOT/.judge-backups/`; returns the folder and the number of files.
/// When the copy fails, the partial copy is removed and nothing else changes.
fn back_up(root: &Path, crate_dir: &Path, dir_name: &str) -> Result<(PathBuf, usize)> {
    let stamp = utc_stamp(jiff::Timestamp::now().as_second());
    let backup = claim(&root.join(".judge-backups"), &format!("{dir_name}-{stamp}"))?;
    match copy_crate(crate_dir, &backup) {
        Ok(files) => Ok((backup, files)),
        Err(err) => {
            let _ = fs_err::remove_dir_all(&backup);
            Err(err.context(format!(
                "cannot back up `{}`, so nothing was changed; free some space or fix the permissions, then try again",
                crate_dir.display()
            )))
        }
    }
}

/// Creates a new folder `base/name` (or `name-2`, `name-3`, … when taken).
fn claim(base: &Path, name: &str) -> Result<PathBuf> {
    // Not through fs-err: `tests/cli/reset.rs` pins this wording.
    std::fs::create_dir_all(base).with_context(|| format!("cannot create `{}`", base.display()))?;
    for n in 1..100 {
        let dir = match n {
            1 => base.join(name),
            _ => base.join(format!("{name}-{n}")),
        };
        match fs_err::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e.into()),
        }
    }
    bail!(
        "cannot find a free backup folder name in `{}`",
        base.display()
    )
}

/// Copies every file and folder of `from` (its `target/` left out) into `to`,
/// checking each file's length; returns the number of files.
fn copy_crate(from: &Path, to: &Path) -> Result<usize> {
    let mut files = 0;
    for entry in WalkDir::new(from)
        .min_depth(1)
        .into_iter()
        .filter_entry(|e| !is_target(e))
    {
        let entry = entry.with_context(|| format!("cannot read `{}`", from.display()))?;
        let target = to.join(entry.path().strip_prefix(from).expect("under the crate"));
        let kind = entry.file_type();
        if kind.is_dir() {
            fs_err::create_dir_all(&target)?;
        } else if kind.is_symlink() {
            fs_err::os::unix::fs::symlink(fs_err::read_link(entry.path())?, &target)?;
        } else {
            let copied = fs_err::copy(entry.path(), &target)?;
            let length = entry.metadata()?.len();
            if copied != length {
                bail!(
                    "`{}` was copied short ({copied} of {length} bytes)",
                    entry.path().display()
                );
            }
        }
        files += usize::from(!kind.is_dir());
    }
    Ok(files)
}

/// Why a course that is not a git checkout cannot be reset (after its path).
const NOT_A_CHECKOUT: &str = "is not a git checkout (or git cannot read it), so the judge cannot \
     tell what the starter code was; get the workbook with `git clone`, or copy the exercise's \
     folder from a fresh download";

/// What happens to a file the learner added.
const ADDED: &str = "you added it and it is not part of the starter (the backup has it)";

/// `secs` since the Unix epoch as a UTC time for a folder name: `20260523T101512Z`.
fn utc_stamp(secs: i64) -> String {
    let at = jiff::Timestamp::from_second(secs).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    at.strftime("%Y%m%dT%H%M%SZ").to_string()
}

#[cfg(test)]
mod tests;
