//! How the commit is found: shared by the build script, which runs it, and
//! the crate's tests, which run it on repositories of their own.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable that, set at build time, names the commit instead of git
/// (to build from a tarball, or in a container without the repository).
pub const OVERRIDE: &str = "WORKBOOK_COMMIT";

/// The commit recorded when there is neither git nor [`OVERRIDE`].
pub const UNKNOWN: &str = "unknown";

/// The folders and files, relative to the repository, whose uncommitted
/// changes make a build `-dirty`: the code the measuring programs are made
/// of (the `gpu` crate, the benches and their examples, the reference
/// solutions some benches run) and the versions of their dependencies.
pub const MEASURED: &[&str] = &["gpu", "benches", "solutions", "Cargo.lock"];

/// Runs git in `root` with `args`; its trimmed output if it succeeds.
fn git(root: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(root)
        // `status` would otherwise refresh the index and write it, which
        // changes a file the build script watches: it would run every build.
        .arg("--no-optional-locks")
        .args(args)
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// The short commit (12 hex digits) checked out in the repository at
/// `root`, with `-dirty` when a path of [`MEASURED`] has uncommitted or
/// untracked changes; `None` where git or the repository is missing.
pub fn describe(root: &Path) -> Option<String> {
    let head = git(root, &["rev-parse", "--short=12", "HEAD"])?;
    let mut status = vec!["status", "--porcelain", "--"];
    status.extend(MEASURED);
    let dirty = !git(root, &status)?.is_empty();
    Some(if dirty { format!("{head}-dirty") } else { head })
}

/// The files whose change may change [`describe`]'s answer: git's `HEAD`,
/// the branch it points at (or `packed-refs`), the index, and the paths of
/// [`MEASURED`]. Only those that exist: cargo runs a build script on every
/// build while a path it watches is missing.
pub fn watched(root: &Path) -> Vec<PathBuf> {
    let git_path = |name: &str| git(root, &["rev-parse", "--git-path", name]).map(PathBuf::from);
    let mut paths = vec![git_path("HEAD"), git_path("index"), git_path("packed-refs")];
    if let Some(branch) = git(root, &["symbolic-ref", "-q", "HEAD"]) {
        paths.push(git_path(&branch));
    }
    let mut paths: Vec<PathBuf> = paths
        .into_iter()
        .flatten()
        .map(|p| if p.is_relative() { root.join(p) } else { p })
        .collect();
    paths.extend(MEASURED.iter().map(|m| root.join(m)));
    paths.retain(|p| p.exists());
    paths
}
