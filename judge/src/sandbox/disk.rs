//! The disk layer: what one sandbox adds to its folders, all its files
//! together, is limited (`--disk-limit`). The per-process file-size limit
//! (`RLIMIT_FSIZE`) stops one file, not many files of just under the limit,
//! and no file system here offers a quota per folder to a judge that may not
//! even be root. So the launcher's outer stage, outside the sandbox, keeps
//! the account: while the target runs, it walks the sandbox's folders again
//! and again, adding up the space of every file, each file and folder at
//! least one 4 KiB block (a flood of empty files uses the disk too). What
//! the judge seeded a folder with (a build's target folder, from its cache)
//! is noted at the start and counted only by what it grows. The account is
//! of the folders, not of one process: the agents one run starts in turn
//! share a home, and what the first left there counts for the next. Past
//! the limit it ends the sandbox at once: its control group where it has
//! one, else the target, whose remaining processes the reaper then ends.
//!
//! A walk takes time, so a sandbox may overshoot by what it writes between
//! two walks: the launcher walks them every [`INTERVAL`] while it waits
//! for the target, or ten times as far apart as the last walk took (so
//! that walking costs at most a tenth of a core), whichever is longer
//! ([`Quota::next_walk`]). Measured on this project's CI machine, a
//! process writing to the page cache as fast as it can overshot a
//! quarter-GiB limit by tens of MiB.

use std::collections::{HashMap, HashSet};
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The shortest time between two walks.
pub(crate) const INTERVAL: Duration = Duration::from_millis(10);

/// The least a new file or folder is counted for.
const BLOCK: u64 = 4096;

/// A file, by its device and inode: a hard link is one file.
type Id = (u64, u64);

/// The account of one sandbox's folders.
#[derive(Debug)]
pub(crate) struct Quota {
    folders: Vec<PathBuf>,
    limit: u64,
    /// The space of each file when the sandbox started.
    before: HashMap<Id, u64>,
}

impl Quota {
    /// The account of `folders` (those under `/proc`, and those that do not
    /// exist, left out), with `limit` bytes for all they hold, except what
    /// the folders `seeded` hold now: the judge put it there.
    pub(crate) fn start(folders: &[PathBuf], seeded: &[PathBuf], limit: u64) -> Self {
        let folders: Vec<PathBuf> = folders
            .iter()
            .filter(|f| !f.starts_with("/proc") && f.is_dir())
            .cloned()
            .collect();
        let seeded: Vec<PathBuf> = seeded.iter().filter(|f| f.is_dir()).cloned().collect();
        let before = files(&seeded).collect();
        Self {
            folders,
            limit,
            before,
        }
    }

    /// The limit, in bytes.
    pub(crate) fn limit(&self) -> u64 {
        self.limit
    }

    /// When to walk again after a walk that began at `began` and ended now.
    pub(crate) fn next_walk(began: Instant) -> Instant {
        Instant::now() + INTERVAL.max(began.elapsed() * 10)
    }

    /// What the folders hold now beyond what they held at the start.
    pub(crate) fn added(&self) -> u64 {
        let mut seen = HashSet::new();
        let mut added = 0u64;
        for (id, bytes) in files(&self.folders) {
            if !seen.insert(id) {
                continue;
            }
            added = added.saturating_add(match self.before.get(&id) {
                Some(&was) => bytes.saturating_sub(was),
                None => bytes.max(BLOCK),
            });
        }
        added
    }

    /// What the folders hold beyond the start, when that is past the limit.
    pub(crate) fn over(&self) -> Option<u64> {
        Some(self.added()).filter(|&added| added > self.limit)
    }
}

/// Every file and folder beneath `folders` (not following links), with the
/// space it takes: its allocated blocks, or its length where that is more
/// (a file system that reports no blocks).
fn files(folders: &[PathBuf]) -> impl Iterator<Item = (Id, u64)> + '_ {
    folders
        .iter()
        .flat_map(|folder| walkdir::WalkDir::new(folder).min_depth(1))
        .filter_map(Result::ok)
        .filter_map(|entry| entry.metadata().ok())
        .map(|meta| ((meta.dev(), meta.ino()), space(&meta)))
}

/// The space a file takes.
fn space(meta: &std::fs::Metadata) -> u64 {
    let blocks = meta.blocks().saturating_mul(512);
    match meta.is_dir() {
        true => blocks,
        false => blocks.max(meta.len()),
    }
}

/// The words that mark [`message`]'s line, for [`said`].
const MARK: &str = "past the disk limit";

/// What the launcher says on the sandbox's standard error when the limit
/// ended it.
pub(crate) fn message(added: u64, limit: u64) -> String {
    format!(
        "the sandbox ended this process: its files grew by {} together, {MARK} of {} \
         (`--disk-limit`); write less, or write one file and reuse it",
        mib(added),
        mib(limit)
    )
}

/// The line of `stderr` that [`message`] wrote, if the launcher wrote one.
pub(crate) fn said(stderr: &str) -> Option<&str> {
    stderr.lines().find(|line| line.contains(MARK))
}

/// Bytes as MiB for a person.
fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes / (1 << 20))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_was_there_at_the_start_is_not_counted_and_what_is_added_is() {
        let dir = tempfile::tempdir().unwrap();
        let seeded = dir.path().join("seeded");
        std::fs::write(&seeded, vec![1u8; 64 << 10]).unwrap();
        let quota = Quota::start(
            &[dir.path().to_path_buf()],
            &[dir.path().to_path_buf()],
            1 << 20,
        );
        assert_eq!(quota.added(), 0);
        std::fs::write(dir.path().join("new"), vec![2u8; 200 << 10]).unwrap();
        let added = quota.added();
        assert!((200 << 10..=210 << 10).contains(&added), "{added}");
        // A hard link of the new file is the same file; an empty file is a block.
        std::fs::hard_link(dir.path().join("new"), dir.path().join("again")).unwrap();
        std::fs::write(dir.path().join("empty"), b"").unwrap();
        assert_eq!(quota.added(), added + BLOCK);
        // A seeded file that grows counts by its growth.
        std::fs::write(&seeded, vec![1u8; 128 << 10]).unwrap();
        assert!(quota.added() >= added + BLOCK + (60 << 10));
    }

    #[test]
    fn proc_and_missing_folders_are_left_out() {
        let quota = Quota::start(
            &[PathBuf::from("/proc"), PathBuf::from("/no/such/folder")],
            &[PathBuf::from("/no/such/folder")],
            1,
        );
        assert!(quota.folders.is_empty());
        assert_eq!(quota.added(), 0);
        assert_eq!(quota.over(), None);
    }

    #[test]
    fn past_the_limit_is_over_and_at_it_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let quota = Quota::start(&[dir.path().to_path_buf()], &[], 8 * BLOCK);
        std::fs::write(dir.path().join("at"), vec![7u8; 8 * BLOCK as usize]).unwrap();
        assert_eq!(
            quota.over(),
            None,
            "eight blocks: at the limit, not past it"
        );
        std::fs::write(dir.path().join("past"), b"x").unwrap();
        assert_eq!(quota.over(), Some(9 * BLOCK));
        assert!(
            message(9 << 20, 8 << 20)
                .contains("grew by 9 MiB together, past the disk limit of 8 MiB")
        );
    }

    #[test]
    fn an_unseeded_folder_counts_what_an_earlier_sandbox_left_there() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("left"), vec![1u8; 3 * BLOCK as usize]).unwrap();
        let next = Quota::start(&[dir.path().to_path_buf()], &[], 2 * BLOCK);
        assert_eq!(next.over(), Some(3 * BLOCK));
        // Truncated and written again, it is the same space, not none.
        std::fs::write(dir.path().join("left"), vec![2u8; 3 * BLOCK as usize]).unwrap();
        assert_eq!(next.over(), Some(3 * BLOCK));
    }
}
