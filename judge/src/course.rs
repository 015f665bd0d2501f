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
    /// A suite is a folder, `judge/checks/exID/`, whose `mod.rs` holds the
    /// `CHECKS` table and declares submodules: a `mod.rs` included by path
    /// finds its submodules beside it (`mod support;` is
    /// `exID/support.rs`), and the checks crate (`judge/checks/lib.rs`)
    /// declares the same folder as its module `exID`. The file may not
    /// exist (see [`missing_suite`]).
    pub(crate) fn checks_file(&self, exercise: &Exercise) -> PathBuf {
        self.root
            .join("judge/checks")
            .join(format!("ex{}/mod.rs", exercise.id))
    }

    /// The bridge of `exercise`: the crate that stands, in the judge's
    /// checker, for the learner's crate, and calls it in the agent
    /// (`lib.rs` over `api.rs`: the checker's side, and the agent's).
    pub(crate) fn bridge_dir(&self, exercise: &Exercise) -> PathBuf {
        match &exercise.bridge {
            Some(dir) => self.root.join(dir),
            None => self
                .root
                .join("judge/bridges")
                .join(format!("ex{}", exercise.id)),
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
/// there) cannot be used, and what to do.
pub(crate) fn missing_suite(checks: &Path) -> String {
    format!(
        "the check suite `{}` is missing; a suite is a folder whose `mod.rs` holds its `CHECKS`",
        checks.display()
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
    fn a_suite_is_the_mod_rs_of_its_folder() {
        let (course, exercise) = course(Path::new("/c"));
        assert_eq!(
            course.checks_file(&exercise),
            Path::new("/c/judge/checks/ex7/mod.rs")
        );
    }

    #[test]
    fn a_missing_suite_names_its_mod_rs() {
        assert_eq!(
            missing_suite(Path::new("/c/judge/checks/ex7/mod.rs")),
            "the check suite `/c/judge/checks/ex7/mod.rs` is missing; a suite is a folder whose `mod.rs` holds its `CHECKS`"
        );
    }
}
