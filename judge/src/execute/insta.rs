//! What insta sees in a harness: the judge's settings, never the learner's,
//! and in grade mode a read-only copy of the suite's snapshots.

use super::RunSpec;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The insta variables of the harness: every `INSTA_*` variable of the
/// judge's environment (the learner's) is removed, so no pending folder,
/// diff tool or references file is used, and the ones that decide whether
/// a snapshot passes or is written are set: no update (no `.snap` or
/// `.snap.new` is written), no force-pass, a full diff in the output.
/// insta's workspace root is `checks`, the judge's `judge/checks` (an
/// `insta.yaml` there would be the judge's, and these variables override
/// any file anyway); that also spares insta a `cargo metadata` call.
/// `INSTA_CARGO_INSTA=1` keeps insta from telling the learner to run
/// `cargo insta test`, and `CI=true` makes insta's `auto` mode `no` too.
pub(super) fn insta_env(command: &mut Command, checks: &Path) {
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("INSTA_") {
            command.env_remove(key);
        }
    }
    command
        .env("INSTA_UPDATE", "no")
        .env("INSTA_FORCE_PASS", "0")
        .env("INSTA_REQUIRE_FULL_MATCH", "0")
        .env("INSTA_OUTPUT", "diff")
        .env("INSTA_WORKSPACE_ROOT", checks)
        .env("INSTA_CARGO_INSTA", "1")
        .env("CI", "true");
}

/// The snapshot folder the harness reads: the suite's own, or in grade mode
/// a copy made for this run, its files and folder read-only, removed when
/// the run ends. The permissions stop a harness of another uid (with the
/// judge as root they stop nothing, so the copy is what counts): whatever a
/// harness writes there never reaches the course or the next submission.
pub(super) struct Snapshots {
    /// The folder the harness reads.
    pub(super) folder: PathBuf,
    /// Whether it is a copy made for this run.
    sealed: bool,
}

impl Snapshots {
    /// The snapshot folder of a run of `spec`.
    pub(super) fn new(spec: &RunSpec) -> Result<Self> {
        let snapshots = spec.suite.join("snapshots");
        if !spec.seal_snapshots {
            return Ok(Self {
                folder: snapshots,
                sealed: false,
            });
        }
        // Made first, so that a copy that fails half-way is removed too.
        let sealed = Self {
            folder: spec
                .scratch
                .join(format!("snapshots-{:016x}", fastrand::u64(..))),
            sealed: true,
        };
        std::fs::create_dir_all(&sealed.folder)
            .with_context(|| format!("cannot create `{}`", sealed.folder.display()))?;
        let entries = std::fs::read_dir(&snapshots)
            .into_iter()
            .flatten()
            .flatten();
        for from in entries
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "snap"))
        {
            let to = sealed.folder.join(from.file_name().unwrap_or_default());
            std::fs::copy(&from, &to)
                .with_context(|| format!("cannot copy `{}`", from.display()))?;
            set_mode(&to, 0o444)?;
        }
        set_mode(&sealed.folder, 0o555)?;
        Ok(sealed)
    }
}

impl Drop for Snapshots {
    fn drop(&mut self) {
        if self.sealed {
            let _ = set_mode(&self.folder, 0o755);
            let _ = std::fs::remove_dir_all(&self.folder);
        }
    }
}

fn set_mode(path: &Path, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("cannot set the permissions of `{}`", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::Sandbox;
    use std::time::Duration;

    fn spec(suite: &Path, scratch: &Path, seal: bool) -> RunSpec {
        RunSpec {
            binary: PathBuf::new(),
            agent: None,
            backend: gpu::Backend::Virtual,
            timeout: Duration::from_secs(1),
            artifacts: None,
            suite: suite.to_path_buf(),
            seal_snapshots: seal,
            seed: None,
            scratch: scratch.to_path_buf(),
            sandbox: Sandbox::default(),
        }
    }

    #[test]
    fn grading_reads_a_read_only_copy_of_the_snapshots_that_goes_away() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (suite, scratch) = (dir.path().join("ex7"), dir.path().join("runs"));
        std::fs::create_dir_all(suite.join("snapshots")).unwrap();
        std::fs::write(suite.join("snapshots/a.snap"), "a").unwrap();
        std::fs::write(suite.join("snapshots/a.snap.new"), "pending").unwrap();
        let own = Snapshots::new(&spec(&suite, &scratch, false)).unwrap();
        assert_eq!(own.folder, suite.join("snapshots"));
        let sealed = Snapshots::new(&spec(&suite, &scratch, true)).unwrap();
        let folder = sealed.folder.clone();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let names: Vec<_> = std::fs::read_dir(&folder)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(
            names,
            ["a.snap"],
            "only the snapshots, no pending `.snap.new`"
        );
        assert_eq!(
            (mode(&folder), mode(&folder.join("a.snap"))),
            (0o555, 0o444)
        );
        drop(sealed);
        assert!(!folder.exists(), "the copy is removed after the run");
        assert!(suite.join("snapshots/a.snap").is_file());
    }
}
