//! `judge reset ID`: puts back the starter code of an exercise.
//!
//! The starter is what git has for the exercise's crate in the last commit
//! (`HEAD`): every file git tracks under `exercises/ID-SLUG`. Nothing is
//! lost: before anything is written, the learner's crate (every file, tracked
//! or not, except `target/`) is copied to `.judge-backups/ID-SLUG-<UTC time>/`
//! in the course folder, and when that copy fails nothing changes. Then the
//! starter's files are written back and the files that are not part of the
//! starter are removed (the backup keeps them).

use crate::course::Course;
use crate::exit;
use anyhow::{Context, Result, bail};
use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};
use walkdir::WalkDir;

/// One file of the starter, as git has it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct StarterFile {
    /// Its path inside the crate.
    path: PathBuf,
    /// Its git object id.
    object: String,
    /// Its git mode: `100644`, `100755` (executable) or `120000` (a symbolic link).
    mode: String,
    /// Its content (for a link, where it points).
    bytes: Vec<u8>,
}

/// What resetting changes in the crate.
#[derive(Debug, Default)]
struct Changes<'a> {
    /// Starter files that are missing or differ.
    write: Vec<&'a StarterFile>,
    /// Files in the crate that are not part of the starter.
    remove: Vec<PathBuf>,
}

/// Backs up the crate of exercise `id`, then restores its starter code.
pub(crate) fn reset(root: Option<&Path>, id: &str) -> Result<u8> {
    let course = Course::open(root)?;
    let exercise = course.manifest.get(id)?.clone();
    let dir_name = exercise.dir_name();
    let crate_dir = course.exercise_dir(&exercise);
    let starter = starter_files(&course.root, &dir_name)?;
    let changes = changes(&crate_dir, &starter)?;
    if changes.write.is_empty() && changes.remove.is_empty() {
        println!(
            "exercise {id} already has its starter code: nothing to do",
            id = exercise.id
        );
        return Ok(exit::OK);
    }
    if crate_dir.exists() {
        let (backup, files) = back_up(&course.root, &crate_dir, &dir_name)?;
        let (backup, dir) = (backup.display(), format!("exercises/{dir_name}"));
        println!("backed up {dir} ({files} files) to {backup}");
    }
    apply(&crate_dir, &changes)?;
    for path in &changes.remove {
        println!("removed {}: {ADDED}", path.display());
    }
    for file in &changes.write {
        println!("restored {}", file.path.display());
    }
    println!(
        "exercise {id} is back to its starter code, {DONE} `judge run {id}` checks it",
        id = exercise.id
    );
    Ok(exit::OK)
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

/// Every file git tracks under `exercises/DIR_NAME` in `HEAD`, with its content.
fn starter_files(root: &Path, dir_name: &str) -> Result<Vec<StarterFile>> {
    let prefix = git(root, &["rev-parse", "--show-prefix"])
        .with_context(|| format!("`{}` {NOT_A_CHECKOUT}", root.display()))?;
    let folder = format!("exercises/{dir_name}");
    let args = ["ls-tree", "-r", "-z", "--full-name", "HEAD", "--", &folder];
    let listing = git(root, &args).with_context(|| {
        format!(
            "the git repository of `{}` has no commit to restore `{folder}` from; nothing was changed",
            root.display()
        )
    })?;
    let inside = format!("{}{folder}/", String::from_utf8_lossy(&prefix).trim());
    let mut files = parse_tree(&String::from_utf8_lossy(&listing), &inside)?;
    if files.is_empty() {
        bail!(
            "`{folder}` is not tracked by git in `{}` {NOT_TRACKED}",
            root.display()
        );
    }
    for file in &mut files {
        file.bytes = git(root, &["cat-file", "blob", &file.object])?;
    }
    Ok(files)
}

/// The blobs of a `git ls-tree -r -z --full-name` listing, their paths made
/// relative to `inside` (the crate's path in the repository, with a `/`).
fn parse_tree(listing: &str, inside: &str) -> Result<Vec<StarterFile>> {
    let mut files = Vec::new();
    for entry in listing.split('\0').filter(|e| !e.is_empty()) {
        let (head, path) = entry
            .split_once('\t')
            .context("unexpected `git ls-tree` output")?;
        let [mode, kind, object] = head.split(' ').collect::<Vec<_>>()[..] else {
            bail!("unexpected `git ls-tree` output: `{entry}`");
        };
        let Some(relative) = path.strip_prefix(inside) else {
            continue;
        };
        let relative = PathBuf::from(relative);
        if kind != "blob"
            || !relative
                .components()
                .all(|c| matches!(c, Component::Normal(_)))
        {
            continue;
        }
        let (mode, object) = (mode.to_string(), object.to_string());
        files.push(StarterFile {
            path: relative,
            object,
            mode,
            bytes: Vec::new(),
        });
    }
    Ok(files)
}

/// The files of the crate, relative to it, `target/` left out.
fn crate_files(crate_dir: &Path) -> Result<Vec<PathBuf>> {
    let walk = WalkDir::new(crate_dir).min_depth(1).follow_links(false);
    let mut files = Vec::new();
    for entry in walk.into_iter().filter_entry(|e| !is_target(e)) {
        let entry = entry.with_context(|| format!("cannot read `{}`", crate_dir.display()))?;
        if !entry.file_type().is_dir() {
            let relative = entry
                .path()
                .strip_prefix(crate_dir)
                .expect("under the crate");
            files.push(relative.to_path_buf());
        }
    }
    Ok(files)
}

/// Whether `entry` is the crate's own `target/` folder.
fn is_target(entry: &walkdir::DirEntry) -> bool {
    entry.depth() == 1 && entry.file_name() == "target" && entry.file_type().is_dir()
}

/// What differs between the crate and its starter.
fn changes<'a>(crate_dir: &Path, starter: &'a [StarterFile]) -> Result<Changes<'a>> {
    let current = match crate_dir.exists() {
        true => crate_files(crate_dir)?,
        false => Vec::new(),
    };
    let wanted: BTreeSet<&Path> = starter.iter().map(|f| f.path.as_path()).collect();
    let remove = current
        .into_iter()
        .filter(|p| !wanted.contains(p.as_path()))
        .collect();
    let write = starter
        .iter()
        .filter(|f| !holds(&crate_dir.join(&f.path), f))
        .collect();
    Ok(Changes { write, remove })
}

/// Whether `path` already is `file`: the same bytes (or, for a link, the same target).
fn holds(path: &Path, file: &StarterFile) -> bool {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if file.mode == "120000" => {
            meta.file_type().is_symlink()
                && std::fs::read_link(path)
                    .is_ok_and(|to| to.as_os_str().as_encoded_bytes() == file.bytes)
        }
        Ok(meta) if meta.is_file() => std::fs::read(path).is_ok_and(|bytes| bytes == file.bytes),
        _ => false,
    }
}

/// Copies the crate (`target/` left out) to a new folder under
/// `ROOT/.judge-backups/`; returns the folder and the number of files.
/// When the copy fails, the partial copy is removed and nothing else changes.
fn back_up(root: &Path, crate_dir: &Path, dir_name: &str) -> Result<(PathBuf, usize)> {
    let stamp = utc_stamp(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    );
    let backup = claim(&root.join(".judge-backups"), &format!("{dir_name}-{stamp}"))?;
    match copy_crate(crate_dir, &backup) {
        Ok(files) => Ok((backup, files)),
        Err(err) => {
            let _ = std::fs::remove_dir_all(&backup);
            Err(err.context(format!(
                "cannot back up `{}`, so nothing was changed; free some space or fix the permissions, then try again",
                crate_dir.display()
            )))
        }
    }
}

/// Creates a new folder `base/name` (or `name-2`, `name-3`, … when taken).
fn claim(base: &Path, name: &str) -> Result<PathBuf> {
    std::fs::create_dir_all(base).with_context(|| format!("cannot create `{}`", base.display()))?;
    for n in 1..100 {
        let dir = match n {
            1 => base.join(name),
            _ => base.join(format!("{name}-{n}")),
        };
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot create `{}`", dir.display())),
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
            std::fs::create_dir_all(&target)
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)
        } else {
            let copied = std::fs::copy(entry.path(), &target)?;
            let length = entry.metadata()?.len();
            if copied != length {
                bail!(
                    "`{}` was copied short ({copied} of {length} bytes)",
                    entry.path().display()
                );
            }
            Ok(())
        }
        .with_context(|| format!("cannot copy `{}`", entry.path().display()))?;
        files += usize::from(!kind.is_dir());
    }
    Ok(files)
}

/// Writes the starter files that differ, removes the files that are not
/// part of the starter, then the folders that are left empty.
fn apply(crate_dir: &Path, changes: &Changes<'_>) -> Result<()> {
    for file in &changes.write {
        write(&crate_dir.join(&file.path), file).with_context(|| {
            format!("cannot restore `{}`", crate_dir.join(&file.path).display())
        })?;
    }
    for path in &changes.remove {
        let path = crate_dir.join(path);
        std::fs::remove_file(&path)
            .with_context(|| format!("cannot remove `{}`", path.display()))?;
    }
    let walk = WalkDir::new(crate_dir).min_depth(1).contents_first(true);
    for entry in walk.into_iter().filter_entry(|e| !is_target(e)).flatten() {
        if entry.file_type().is_dir() {
            let _ = std::fs::remove_dir(entry.path()); // only succeeds when empty
        }
    }
    Ok(())
}

/// Puts `file` at `path`, replacing whatever is there (never writing
/// through a link).
fn write(path: &Path, file: &StarterFile) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        match meta.is_dir() {
            true => std::fs::remove_dir_all(path)?,
            false => std::fs::remove_file(path)?,
        }
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    if file.mode == "120000" {
        let target = std::ffi::OsStr::new(std::str::from_utf8(&file.bytes).unwrap_or_default());
        return std::os::unix::fs::symlink(target, path);
    }
    std::fs::write(path, &file.bytes)?;
    let mode = if file.mode == "100755" { 0o755 } else { 0o644 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
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
fn utc_stamp(secs: u64) -> String {
    let (days, time) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    let (hour, minute, second) = (time / 3600, time % 3600 / 60, time % 60);
    format!("{year:04}{month:02}{day:02}T{hour:02}{minute:02}{second:02}Z")
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests;
