//! Making what the sandbox may read reachable by its unprivileged user.
//!
//! As root, the judge's toolchain is often in root's home (`/root/.rustup`,
//! and `/root` has mode 0700), and a course may be in a private folder.
//! The sandbox user reads past file modes with `CAP_DAC_READ_SEARCH`
//! ([`crate::sandbox::identity`]), but programs that look for files with
//! `access(2)` check the real user without its capabilities: the C compiler
//! finds the linker in the toolchain that way. So before it becomes that
//! user, the launcher gives itself a mount namespace of its own in which
//! each folder the user cannot walk through is a `tmpfs` it may walk
//! (mode 0711: not list), holding only the policy's paths beneath it,
//! mounted back in their places. Nothing changes outside the namespace,
//! and what the folder held besides is hidden inside it.

use crate::sandbox::config::User;
use nix::fcntl::{OFlag, open};
use nix::mount::{MsFlags, mount};
use nix::sched::{CloneFlags, unshare};
use nix::sys::stat::Mode;
use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Gives this process (the first of a new pid namespace) a mount namespace
/// of its own whose `/proc` shows that pid namespace: the CUDA driver
/// starts there, where it fails with the machine's `/proc`.
pub(crate) fn fresh_proc() -> nix::Result<()> {
    unshare(CloneFlags::CLONE_NEWNS)?;
    let none: Option<&str> = None;
    mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_PRIVATE, none)?;
    let flags = MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC;
    mount(Some("proc"), "/proc", Some("proc"), flags, none)
}

/// Makes every existing path of `paths` reachable by `user`, in a new mount
/// namespace when any is not; returns whether one was needed.
pub(crate) fn reach(paths: &[PathBuf], user: User) -> nix::Result<bool> {
    let blocked = blocked(paths, user);
    if blocked.is_empty() {
        return Ok(false);
    }
    unshare(CloneFlags::CLONE_NEWNS)?;
    let none: Option<&str> = None;
    mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_PRIVATE, none)?;
    for (folder, beneath) in blocked {
        cover(&folder, &beneath)?;
    }
    Ok(true)
}

/// For each folder `user` cannot walk through, the outermost paths of
/// `paths` beneath it.
fn blocked(paths: &[PathBuf], user: User) -> BTreeMap<PathBuf, Vec<PathBuf>> {
    let mut blocked: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    let mut sorted: Vec<&PathBuf> = paths
        .iter()
        .filter(|p| p.is_absolute() && p.exists())
        .collect();
    sorted.sort();
    for path in sorted {
        let Some(folder) = path
            .ancestors()
            .skip(1)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .find(|a| !walkable(a, user))
        else {
            continue;
        };
        let beneath = blocked.entry(folder.to_path_buf()).or_default();
        if !beneath.iter().any(|b| path.starts_with(b)) {
            beneath.push(path.clone());
        }
    }
    blocked
}

/// Whether `user` may walk through the folder `dir` by its mode.
fn walkable(dir: &Path, user: User) -> bool {
    let Ok(meta) = std::fs::metadata(dir) else {
        return true;
    };
    let mode = meta.mode();
    let bit = if meta.uid() == user.uid {
        0o100
    } else if meta.gid() == user.gid {
        0o010
    } else {
        0o001
    };
    mode & bit != 0
}

/// Mounts a walkable `tmpfs` over `folder`, with each of `beneath` mounted
/// back in its place.
fn cover(folder: &Path, beneath: &[PathBuf]) -> nix::Result<()> {
    let kept: Vec<(PathBuf, OwnedFd, bool)> = beneath
        .iter()
        .filter_map(|p| {
            let fd = open(p.as_path(), OFlag::O_PATH | OFlag::O_CLOEXEC, Mode::empty()).ok()?;
            Some((p.clone(), fd, p.is_dir()))
        })
        .collect();
    let flags = MsFlags::MS_NOSUID | MsFlags::MS_NODEV;
    mount(
        Some("tmpfs"),
        folder,
        Some("tmpfs"),
        flags,
        Some("mode=0711"),
    )?;
    for (path, fd, is_dir) in kept {
        let made = match is_dir {
            true => std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o711)
                .create(&path),
            false => make_file(&path),
        };
        if made.is_err() {
            continue;
        }
        let source = format!("/proc/self/fd/{}", fd.as_raw_fd());
        let none: Option<&str> = None;
        mount(
            Some(source.as_str()),
            &path,
            none,
            MsFlags::MS_BIND | MsFlags::MS_REC,
            none,
        )?;
    }
    Ok(())
}

/// An empty file at `path` (its folders made), to mount a file over.
fn make_file(path: &Path) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o711)
            .create(parent)?;
    }
    std::fs::File::create(path).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn finds_the_outermost_folder_a_user_cannot_walk() {
        let dir = tempfile::tempdir().unwrap();
        let private = dir.path().join("private");
        std::fs::create_dir_all(private.join("a/b")).unwrap();
        std::fs::create_dir_all(private.join("c")).unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
        let paths = [
            private.join("a"),
            private.join("a/b"),
            private.join("c"),
            dir.path().to_path_buf(),
        ];
        let nobody = User::NOBODY;
        let blocked = blocked(&paths, nobody);
        assert_eq!(blocked.len(), 1, "{blocked:?}");
        assert_eq!(blocked[&private], [private.join("a"), private.join("c")]);
    }
}
