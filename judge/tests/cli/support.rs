//! Running the judge binary against a copy of the fixture course.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A private copy of the fixture course (tests may edit it) and the judge binary.
pub(crate) struct Course {
    pub(crate) root: PathBuf,
    _dir: tempfile::TempDir,
}

/// What a judge invocation produced.
#[derive(Debug)]
pub(crate) struct Output {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Course {
    /// A fresh copy of `tests/fixtures/course`.
    pub(crate) fn fixture() -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let root = dir.path().join("course");
        copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/course"),
            &root,
        );
        Self { root, _dir: dir }
    }

    /// Runs `judge --root COURSE ARGS…` on the virtual GPU, without colors.
    pub(crate) fn judge(&self, args: &[&str]) -> Output {
        self.judge_with(args, &[])
    }

    /// Like [`Course::judge`], with more environment variables.
    pub(crate) fn judge_with(&self, args: &[&str], env: &[(&str, &Path)]) -> Output {
        let out = Command::new(env!("CARGO_BIN_EXE_judge"))
            .envs(env.iter().copied())
            .arg("--root")
            .arg(&self.root)
            .args(args)
            .env("NO_COLOR", "1")
            .env("GPU_BACKEND", "virtual")
            .env("CARGO_TARGET_DIR", shared_target())
            .output()
            .expect("the judge runs");
        Output {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// `text` with this course's path and timings replaced by stable markers.
    pub(crate) fn redact(&self, text: &str) -> String {
        let root = self.root.display().to_string();
        text.replace(&root, "[COURSE]")
            .replace(env!("CARGO_MANIFEST_DIR"), "[JUDGE]")
    }
}

/// The workspace's target folder: harness builds are shared between tests.
fn shared_target() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
