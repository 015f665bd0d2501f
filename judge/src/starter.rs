//! An exercise's starter code, and putting it back (`judge reset`, and
//! the `x` key of `judge watch`).
//!
//! The starter is what git has for the exercise's crate in the last commit
//! (`HEAD`): every file git tracks under `exercises/ID-SLUG`. Nothing is
//! lost: before anything is written, the learner's crate (every file, tracked
//! or not, except `target/`) is copied to `.judge-backups/ID-SLUG-<UTC time>/`
//! in the course folder, and when that copy fails nothing changes. Then git
//! puts the starter back (`git restore --source=HEAD --staged --worktree`)
//! and removes the files that are not part of it (`git clean -d -x`, the
//! crate's `target/` left alone; the backup keeps them).

use crate::course::Course;
use crate::manifest::Exercise;
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;
use walkdir::WalkDir;

/// Where an exercise's starter is: its crate in the last commit of the
/// course's git repository.
#[derive(Clone, Debug)]
struct Starter {
    /// The course folder, where git runs.
    root: PathBuf,
    /// The crate as git pathspecs: its folder, `exercises/ID-SLUG`, but not
    /// its `target/` folder, which reset leaves alone.
    pathspecs: [String; 2],
    /// The crate's path in the repository, with a `/`: how `git status` names its files.
    inside: String,
}

/// What resetting changes in the crate, its paths relative to it.
#[derive(Debug, Default, PartialEq, Eq)]
struct Changes {
    /// Starter files that are missing or differ.
    write: Vec<PathBuf>,
    /// Files in the crate that are not part of the starter.
    remove: Vec<PathBuf>,
}

/// What putting the starter back did.
#[derive(Debug)]
pub(crate) struct Reset {
    /// The exercise.
    id: u32,
    /// Its folder name, `ID-SLUG`.
    dir_name: String,
    /// The backup folder and the number of files in it, if the crate existed.
    backup: Option<(PathBuf, usize)>,
    /// What changed (nothing when the crate already was the starter).
    changes: Changes,
}

impl Reset {
    /// What to tell the learner, line by line.
    pub(crate) fn lines(&self) -> Vec<String> {
        let id = self.id;
        if self.changes.write.is_empty() && self.changes.remove.is_empty() {
            return vec![format!(
                "exercise {id} already has its starter code: nothing to do"
            )];
        }
        let mut lines = Vec::new();
        if let Some((backup, files)) = &self.backup {
            let dir = format!("exercises/{}", self.dir_name);
            lines.push(format!(
                "backed up {dir} ({files} files) to {}",
                backup.display()
            ));
        }
        for path in &self.changes.remove {
            lines.push(format!("removed {}: {ADDED}", path.display()));
        }
        for path in &self.changes.write {
            lines.push(format!("restored {}", path.display()));
        }
        lines.push(format!(
            "exercise {id} is back to its starter code, {DONE} `judge run {id}` checks it"
        ));
        lines
    }
}

/// Backs up the crate of `exercise`, then restores its starter code.
pub(crate) fn reset(course: &Course, exercise: &Exercise) -> Result<Reset> {
    let dir_name = exercise.dir_name();
    let crate_dir = course.exercise_dir(exercise);
    let starter = starter(&course.root, &dir_name)?;
    let changes = changes(&starter)?;
    let mut done = Reset {
        id: exercise.id,
        dir_name,
        backup: None,
        changes,
    };
    if done.changes.write.is_empty() && done.changes.remove.is_empty() {
        return Ok(done);
    }
    if crate_dir.exists() {
        done.backup = Some(back_up(&course.root, &crate_dir, &done.dir_name)?);
    }
    restore(&starter)?;
    Ok(done)
}

/// Runs `git -C ROOT ARGS`; its output, or an error with git's message.
fn git(root: &Path, args: &[&str]) -> Result<Vec<u8>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .context(
            "cannot run `git`; `judge reset` needs git to find the starter code: install git",
        )?;
    if !out.status.success() {
        let message = String::from_utf8_lossy(&out.stderr);
        bail!("`git {}` failed: {}", args.join(" "), message.trim());
    }
    Ok(out.stdout)
}

/// The starter of the crate `exercises/DIR_NAME`, once git has said the
/// course is a checkout whose last commit has files there.
fn starter(root: &Path, dir_name: &str) -> Result<Starter> {
    let prefix = git(root, &["rev-parse", "--show-prefix"])
        .with_context(|| format!("`{}` {NOT_A_CHECKOUT}", root.display()))?;
    let folder = format!("exercises/{dir_name}");
    let listing = git(root, &["ls-tree", "--name-only", "HEAD", "--", &folder]).with_context(|| {
        format!(
            "the git repository of `{}` has no commit to restore `{folder}` from; nothing was changed",
            root.display()
        )
    })?;
    if listing.is_empty() {
        bail!(
            "`{folder}` is not tracked by git in `{}` {NOT_TRACKED}",
            root.display()
        );
    }
    let inside = format!("{}{folder}/", String::from_utf8_lossy(&prefix).trim());
    let not_target = format!(":(exclude){folder}/target");
    Ok(Starter {
        root: root.to_path_buf(),
        pathspecs: [folder, not_target],
        inside,
    })
}

/// Runs `git ARGS -- PATHSPECS` on the starter's crate (`target/` left out).
fn git_on(starter: &Starter, args: &[&str]) -> Result<Vec<u8>> {
    let pathspecs = starter.pathspecs.iter().map(String::as_str);
    let args: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--"])
        .chain(pathspecs)
        .collect();
    git(&starter.root, &args)
}

/// What differs between the crate and its starter, as `git status` sees it
/// (ignored files included, `target/` left out).
fn changes(starter: &Starter) -> Result<Changes> {
    let status = [
        "status",
        "--porcelain=v1",
        "-z",
        "--no-renames",
        "--untracked-files=all",
        "--ignored",
    ];
    let listing = git_on(starter, &status)?;
    Ok(parse_status(
        &String::from_utf8_lossy(&listing),
        &starter.inside,
    ))
}

/// The changes a `git status --porcelain=v1 -z --no-renames` listing shows,
/// its paths made relative to `inside` (the crate's path in the repository,
/// with a `/`): untracked, ignored and newly added files are not part of the
/// starter; every other entry is a starter file that is missing or differs.
fn parse_status(listing: &str, inside: &str) -> Changes {
    let mut changes = Changes::default();
    for entry in listing.split('\0').filter(|e| e.len() > 3) {
        let (code, path) = entry.split_at(3);
        let Some(relative) = path.strip_prefix(inside) else {
            continue;
        };
        let added = matches!(code, "?? " | "!! ") || (code.starts_with('A') && code != "AA ");
        match added {
            true => changes.remove.push(relative.into()),
            false => changes.write.push(relative.into()),
        }
    }
    changes.remove.retain(|path| !changes.write.contains(path));
    changes
}

/// Puts the starter back: git restores its files (index and work tree) as
/// the last commit has them and cleans away every other file of the crate,
/// `target/` left out.
fn restore(starter: &Starter) -> Result<()> {
    git_on(
        starter,
        &["restore", "--source=HEAD", "--staged", "--worktree"],
    )?;
    git_on(starter, &["clean", "-f", "-d", "-x", "-q"])?;
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

/// Why a crate git does not track cannot be reset (after its path).
const NOT_TRACKED: &str = "(the last commit has no file there), so there is no starter to \
     restore; nothing was changed";

/// What happens to a file the learner added.
const ADDED: &str = "you added it and it is not part of the starter (the backup has it)";

/// Where the starter came from.
const DONE: &str = "as of the last git commit;";

/// `secs` since the Unix epoch as a UTC time for a folder name: `20260523T101512Z`.
fn utc_stamp(secs: i64) -> String {
    let at = jiff::Timestamp::from_second(secs).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    at.strftime("%Y%m%dT%H%M%SZ").to_string()
}

#[cfg(test)]
mod tests;
