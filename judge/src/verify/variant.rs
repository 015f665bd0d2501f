//! Known-wrong variants: one file per mistake a learner makes.
//!
//! A variant is a complete `src/lib.rs` that replaces the solution's. Its
//! first lines say what it gets wrong and how the checks must react:
//!
//! ```text
//! //! mistake: copies the tokens into a Vec in the hot loop
//! //! fails: overlap_efficiency, no_blocking_call_in_steady_state
//! //! says: pageable
//! ```
//!
//! It is caught when every check named by `fails` fails, and the failure
//! text of at least one of them contains `says` (the diagnosis).

use crate::course::Course;
use crate::manifest::Exercise;
use crate::report::{ExerciseReport, describe};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// A parsed variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Variant {
    /// The file stem.
    pub(super) name: String,
    /// Its source.
    pub(super) path: PathBuf,
    /// The mistake, in words.
    pub(super) mistake: String,
    /// Checks that must fail.
    pub(super) fails: Vec<String>,
    /// Text the diagnosis must contain.
    pub(super) says: String,
}

/// Every variant in `dir` (none if the folder does not exist), by name.
pub(super) fn load_all(dir: &Path) -> Result<Vec<Variant>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    paths.sort();
    paths.iter().map(|p| parse(p)).collect()
}

fn parse(path: &Path) -> Result<Variant> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the variant `{}`", path.display()))?;
    let field = |key: &str| {
        text.lines()
            .take_while(|l| l.starts_with("//!"))
            .find_map(|l| {
                l.trim_start_matches("//!")
                    .trim()
                    .strip_prefix(key)
                    .map(|v| v.trim().to_string())
            })
    };
    let (Some(mistake), Some(fails), Some(says)) =
        (field("mistake:"), field("fails:"), field("says:"))
    else {
        bail!(
            "the variant `{}` must start with `//! mistake: …`, `//! fails: CHECK, …` and `//! says: TEXT` lines",
            path.display()
        );
    };
    let fails: Vec<String> = fails
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if fails.is_empty() || says.is_empty() {
        bail!(
            "the variant `{}` names no failing check or no diagnosis",
            path.display()
        );
    }
    Ok(Variant {
        name: path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        path: path.to_path_buf(),
        mistake,
        fails,
        says,
    })
}

impl Variant {
    /// A scratch copy of the solution crate with this variant as `src/lib.rs`.
    pub(super) fn materialize(&self, course: &Course, exercise: &Exercise) -> Result<PathBuf> {
        let dir = course
            .scratch("variants")
            .join(format!("{}-{}", exercise.id, self.name));
        let solution = course.solution_dir(exercise);
        copy_crate(&solution, &dir)?;
        std::fs::copy(&self.path, dir.join("src/lib.rs"))
            .with_context(|| format!("cannot copy the variant `{}`", self.path.display()))?;
        Ok(dir)
    }

    /// Whether `report` catches the variant, or why not.
    pub(super) fn judge(&self, report: &ExerciseReport) -> Result<(), String> {
        let checks = report.checks();
        let mut diagnosis_seen = false;
        for name in &self.fails {
            let Some(check) = checks.iter().find(|c| &c.info.name == name) else {
                return Err(format!(
                    "the suite has no check `{name}`, or the variant did not compile"
                ));
            };
            if check.outcome.passed() {
                return Err(format!("`{name}` passed; it should catch this mistake"));
            }
            diagnosis_seen |= describe(&check.outcome).contains(&self.says);
        }
        if diagnosis_seen {
            Ok(())
        } else {
            Err(format!("the failing checks never say `{}`", self.says))
        }
    }
}

/// Copies a crate's `Cargo.toml` and `src/` (nothing else) to `to`, afresh.
pub(crate) fn copy_crate(from: &Path, to: &Path) -> Result<()> {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to.join("src"))
        .with_context(|| format!("cannot create `{}`", to.display()))?;
    std::fs::copy(from.join("Cargo.toml"), to.join("Cargo.toml"))
        .with_context(|| format!("`{}` has no Cargo.toml", from.display()))?;
    for entry in walkdir::WalkDir::new(from.join("src")) {
        let entry = entry.with_context(|| format!("cannot read `{}`", from.display()))?;
        let relative = entry.path().strip_prefix(from).expect("under the crate");
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(to.join(relative))?;
        } else {
            std::fs::copy(entry.path(), to.join(relative))?;
        }
    }
    Ok(())
}
