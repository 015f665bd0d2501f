//! Taking back the disk a submission's build used, when the build failed or
//! was stopped (past the disk limit, the memory limit or its time): what
//! it wrote is of no use to the next build, and a build stopped at the
//! disk limit leaves that limit's worth behind (2 GiB by default). So
//! before such a build the judge notes what its folders hold
//! ([`Noted::of`]), and after it removes what is not as noted
//! ([`Noted::restore`]): every file and folder the build added, and every
//! file it replaced or wrote. What the judge seeded the target folder with
//! (the hard links to its cache) and what earlier builds of the submission
//! made stay, so the next build starts where this one did.
//!
//! The submission's scratch folder as a whole goes when its grading ends
//! (`Submission::remove_scratch`, a layer above): together, the disk a
//! class uses is what the submissions graded at once hold, not a stopped
//! build's worth per student.

use anyhow::{Context, Result};
use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

/// What a file or folder was: its device and inode, its length and when
/// it was last written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Was {
    id: (u64, u64),
    len: u64,
    modified: (i64, i64),
}

/// What some folders held at one moment.
#[derive(Debug)]
pub(crate) struct Noted {
    folders: Vec<PathBuf>,
    entries: HashMap<PathBuf, Was>,
}

impl Noted {
    /// What `folders` hold now (a folder that is not there holds nothing).
    pub(crate) fn of(folders: &[PathBuf]) -> Self {
        let entries = folders
            .iter()
            .flat_map(|folder| WalkDir::new(folder).min_depth(1))
            .filter_map(Result::ok)
            .filter_map(|entry| Some((entry.path().to_path_buf(), was(&entry.metadata().ok()?))))
            .collect();
        Self {
            folders: folders.to_vec(),
            entries,
        }
    }

    /// Removes from the folders every file and folder that is not as noted:
    /// added since, or (a file) replaced or written.
    pub(crate) fn restore(&self) -> Result<()> {
        for folder in &self.folders {
            let mut walk = WalkDir::new(folder).min_depth(1).into_iter();
            while let Some(entry) = walk.next() {
                let Ok(entry) = entry else { continue };
                let Ok(meta) = entry.metadata() else { continue };
                if self.kept(entry.path(), &meta) {
                    continue;
                }
                if meta.is_dir() {
                    walk.skip_current_dir();
                }
                remove(entry.path(), meta.is_dir())?;
            }
        }
        Ok(())
    }

    /// Whether `path`, now `meta`, is as noted: the same file, unwritten,
    /// or the same folder (whose contents are judged one by one).
    fn kept(&self, path: &Path, meta: &std::fs::Metadata) -> bool {
        let now = was(meta);
        self.entries
            .get(path)
            .is_some_and(|&then| then.id == now.id && (meta.is_dir() || then == now))
    }
}

/// What `meta` says a file is.
fn was(meta: &std::fs::Metadata) -> Was {
    Was {
        id: (meta.dev(), meta.ino()),
        len: meta.len(),
        modified: (meta.mtime(), meta.mtime_nsec()),
    }
}

/// Removes a file, or a folder with all it holds; one already gone is fine.
fn remove(path: &Path, dir: bool) -> Result<()> {
    let removed = match dir {
        true => std::fs::remove_dir_all(path),
        false => std::fs::remove_file(path),
    };
    match removed {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("cannot remove `{}`", path.display()))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file and folder under `dir`, relative, sorted.
    fn listing(dir: &Path) -> Vec<String> {
        let mut all: Vec<String> = WalkDir::new(dir)
            .min_depth(1)
            .into_iter()
            .map(|e| {
                e.unwrap()
                    .path()
                    .strip_prefix(dir)
                    .unwrap()
                    .display()
                    .to_string()
            })
            .collect();
        all.sort();
        all
    }

    #[test]
    fn what_a_build_added_replaced_or_wrote_goes_and_what_was_there_stays() {
        let dir = tempfile::tempdir().unwrap();
        let (cache, target) = (dir.path().join("cache"), dir.path().join("target"));
        std::fs::create_dir_all(target.join("release/deps")).unwrap();
        std::fs::create_dir_all(&cache).unwrap();
        std::fs::write(cache.join("libgpu.rlib"), "gpu").unwrap();
        std::fs::hard_link(
            cache.join("libgpu.rlib"),
            target.join("release/deps/libgpu.rlib"),
        )
        .unwrap();
        for file in ["kept", "replaced", "grown", "rewritten"] {
            std::fs::write(target.join(file), "before").unwrap();
        }
        let noted = Noted::of(&[target.clone(), dir.path().join("missing")]);
        let before = listing(&target);
        std::fs::create_dir_all(target.join("release/incremental/s-1")).unwrap();
        std::fs::write(
            target.join("release/incremental/s-1/huge.o"),
            vec![1; 1 << 16],
        )
        .unwrap();
        std::fs::write(target.join("release/deps/libfixture.rlib"), "new").unwrap();
        std::fs::remove_file(target.join("replaced")).unwrap();
        std::fs::write(target.join("replaced"), "again").unwrap();
        std::fs::write(target.join("grown"), "before, and more").unwrap();
        let file = std::fs::File::options()
            .write(true)
            .open(target.join("rewritten"));
        file.unwrap()
            .set_modified(std::time::SystemTime::now())
            .unwrap();
        noted.restore().unwrap();
        let mut expected = before;
        expected.retain(|p| !["replaced", "grown", "rewritten"].contains(&p.as_str()));
        assert_eq!(listing(&target), expected);
        assert_eq!(
            std::fs::read_to_string(cache.join("libgpu.rlib")).unwrap(),
            "gpu"
        );
    }
}
