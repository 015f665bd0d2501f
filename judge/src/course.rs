//! Where things are: the course (exercises, solutions, check suites) and the
//! judge's own workspace (the `gpu` crate and the harness runtime).

use crate::manifest::{Exercise, Manifest};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// A course on disk.
#[derive(Clone, Debug)]
pub(crate) struct Course {
    /// The folder holding `exercises/info.toml`.
    pub(crate) root: PathBuf,
    /// The judge's workspace: `gpu/` and `judge/harness/` live there.
    pub(crate) tools: PathBuf,
    /// The manifest.
    pub(crate) manifest: Manifest,
}

impl Course {
    /// Opens the course at `root`, or the one around the current folder.
    pub(crate) fn open(root: Option<&Path>) -> Result<Self> {
        let root = match root {
            Some(root) => root.to_path_buf(),
            None => find_root(&std::env::current_dir()?)?,
        };
        let root = root
            .canonicalize()
            .with_context(|| format!("the course folder `{}` does not exist", root.display()))?;
        let manifest = Manifest::load(&root.join("exercises/info.toml"))?;
        Ok(Self {
            tools: tools_dir(),
            root,
            manifest,
        })
    }

    /// The learner's crate of `exercise`.
    pub(crate) fn exercise_dir(&self, exercise: &Exercise) -> PathBuf {
        self.root.join("exercises").join(exercise.dir_name())
    }

    /// The reference solution of `exercise`.
    pub(crate) fn solution_dir(&self, exercise: &Exercise) -> PathBuf {
        self.root.join("solutions").join(exercise.dir_name())
    }

    /// The judge's check suite for `exercise`: the file the harness includes
    /// as its module `suite` (`#[path = "…"] mod suite;`).
    ///
    /// A suite is one file, `judge/checks/exID.rs`, or a folder,
    /// `judge/checks/exID/mod.rs`, whose `mod.rs` holds the `CHECKS` table and
    /// declares submodules: a `mod.rs` included by path finds its
    /// submodules beside it (`mod support;` is `exID/support.rs`), so a long
    /// suite splits by theme. The folder wins when its `mod.rs` exists; else
    /// this is the single file, which may not exist either (see
    /// [`missing_suite`]).
    pub(crate) fn checks_file(&self, exercise: &Exercise) -> PathBuf {
        let checks = self.root.join("judge/checks");
        let folder = checks.join(format!("ex{}/mod.rs", exercise.id));
        if folder.is_file() {
            folder
        } else {
            checks.join(format!("ex{}.rs", exercise.id))
        }
    }

    /// The known-wrong variants of `exercise`: one patch (or whole file) per mistake.
    pub(crate) fn variants_dir(&self, exercise: &Exercise) -> PathBuf {
        self.root
            .join("judge/variants")
            .join(exercise.id.to_string())
    }

    /// The learner's progress file.
    pub(crate) fn progress_file(&self) -> PathBuf {
        self.root.join(".judge-progress")
    }

    /// Where the judge builds and runs things: the shared target folder.
    pub(crate) fn target_dir(&self) -> PathBuf {
        std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| self.tools.join("target"))
    }

    /// The judge's scratch folder under the target folder.
    pub(crate) fn scratch(&self, what: &str) -> PathBuf {
        self.target_dir().join("judge").join(what)
    }
}

/// Why the check suite at `checks` (a [`Course::checks_file`] that is not
/// there) cannot be used, naming both places a suite may be.
pub(crate) fn missing_suite(checks: &Path) -> String {
    let (file, folder) = if checks.file_name().is_some_and(|n| n == "mod.rs") {
        let dir = checks.parent().unwrap_or(checks);
        (dir.with_extension("rs"), checks.to_path_buf())
    } else {
        (
            checks.to_path_buf(),
            checks.with_extension("").join("mod.rs"),
        )
    };
    format!(
        "the check suite `{}` is missing, and so is the folder suite `{}`",
        file.display(),
        folder.display()
    )
}

/// The judge's workspace: `JUDGE_TOOLS`, else where this judge was built.
fn tools_dir() -> PathBuf {
    match std::env::var_os("JUDGE_TOOLS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("judge/ has a parent")
            .to_path_buf(),
    }
}

/// The nearest folder at or above `start` holding `exercises/info.toml`.
fn find_root(start: &Path) -> Result<PathBuf> {
    for dir in start.ancestors() {
        if dir.join("exercises/info.toml").is_file() {
            return Ok(dir.to_path_buf());
        }
    }
    bail!(
        "no course here: no `exercises/info.toml` in `{}` or above; run the judge inside the workbook, or pass `--root DIR`",
        start.display()
    )
}

/// Courses for other modules' unit tests.
#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;

    /// A course at `root` with no exercises, its tools there too.
    pub(crate) fn course_at(root: &Path) -> Course {
        Course {
            root: root.to_path_buf(),
            tools: root.to_path_buf(),
            manifest: Manifest {
                format: 1,
                exercises: Vec::new(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn course(root: &Path) -> (Course, Exercise) {
        let exercise: Exercise = toml::from_str(
            "id = 7\nslug = \"s\"\ntitle = \"t\"\nchapter = \"c.md\"\ndifficulty = 1\npoints = 1\ntimeout_s = 1\nlib = \"l\"\nhints = []\n",
        )
        .unwrap();
        let manifest = Manifest {
            format: 1,
            exercises: vec![exercise.clone()],
        };
        let course = Course {
            root: root.to_path_buf(),
            tools: root.to_path_buf(),
            manifest,
        };
        (course, exercise)
    }

    #[test]
    fn a_suite_folder_wins_over_the_single_file() {
        let dir = tempfile::tempdir().unwrap();
        let (course, exercise) = course(dir.path());
        let checks = dir.path().join("judge/checks");
        assert_eq!(course.checks_file(&exercise), checks.join("ex7.rs"));
        std::fs::create_dir_all(checks.join("ex7")).unwrap();
        assert_eq!(
            course.checks_file(&exercise),
            checks.join("ex7.rs"),
            "a folder without `mod.rs` is no suite"
        );
        std::fs::write(checks.join("ex7/mod.rs"), "").unwrap();
        assert_eq!(course.checks_file(&exercise), checks.join("ex7/mod.rs"));
    }

    #[test]
    fn a_missing_suite_names_both_places() {
        let expected = "the check suite `/c/judge/checks/ex7.rs` is missing, and so is the folder suite `/c/judge/checks/ex7/mod.rs`";
        assert_eq!(missing_suite(Path::new("/c/judge/checks/ex7.rs")), expected);
        assert_eq!(
            missing_suite(Path::new("/c/judge/checks/ex7/mod.rs")),
            expected
        );
    }
}
