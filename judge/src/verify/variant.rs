//! Known-wrong variants: one file per mistake a learner makes.
//!
//! A variant is a complete source file that replaces the solution's
//! `src/lib.rs`, or the file its `replaces:` line names. Its first lines say
//! what it gets wrong and how the checks must react:
//!
//! ```text
//! //! mistake: copies the tokens into a Vec in the hot loop
//! //! fails: overlap_efficiency, no_blocking_call_in_steady_state
//! //! says: pageable
//! //! replaces: src/lib.rs
//! ```
//!
//! It is caught when every check named by `fails` fails, and the failure
//! text of at least one of them contains `says` (the diagnosis).

use crate::course::Course;
use crate::grade::scratch;
use crate::manifest::Exercise;
use crate::report::{ExerciseReport, describe};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// A parsed variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Variant {
    /// The file stem.
    pub(crate) name: String,
    /// Its source.
    pub(super) path: PathBuf,
    /// The mistake, in words.
    pub(super) mistake: String,
    /// Checks that must fail.
    pub(super) fails: Vec<String>,
    /// Text the diagnosis must contain.
    pub(super) says: String,
    /// The solution's file it replaces, relative to the crate (`src/lib.rs`).
    pub(super) replaces: String,
}

/// Every variant in `dir` (none if the folder does not exist), by name.
pub(crate) fn load_all(dir: &Path) -> Result<Vec<Variant>> {
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
    let replaces = field("replaces:").unwrap_or_else(|| "src/lib.rs".into());
    if !replaces.starts_with("src/") || replaces.split('/').any(|part| part == "..") {
        bail!(
            "the variant `{}` replaces `{replaces}`; it may only replace a file under `src/`",
            path.display()
        );
    }
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
        replaces,
    })
}

impl Variant {
    /// A scratch copy of the solution crate with this variant in place of
    /// the file it replaces.
    pub(crate) fn materialize(&self, course: &Course, exercise: &Exercise) -> Result<PathBuf> {
        let course_hash = scratch::paths_hash(&[&course.root]);
        let dir = scratch::folder(course, "variants")?
            .join(format!("{}-{course_hash:08x}", exercise.dir_name()))
            .join(&self.name);
        let solution = course.solution_dir(exercise);
        scratch::copy_crate(&solution, &dir, &solution)?;
        std::fs::copy(&self.path, dir.join(&self.replaces))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn variant_with(extra: &str) -> Result<Variant> {
        let dir = std::env::temp_dir().join(format!("judge-variant-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("v{}.rs", extra.len()));
        std::fs::write(
            &path,
            format!("//! mistake: m\n//! fails: a, b\n//! says: s\n{extra}\npub fn f() {{}}\n"),
        )
        .unwrap();
        parse(&path)
    }

    #[test]
    fn a_variant_replaces_lib_rs_unless_it_names_a_file_under_src() {
        assert_eq!(variant_with("").unwrap().replaces, "src/lib.rs");
        assert_eq!(
            variant_with("//! replaces: src/error.rs").unwrap().replaces,
            "src/error.rs"
        );
        assert!(variant_with("//! replaces: Cargo.toml").is_err());
        assert!(variant_with("//! replaces: src/../Cargo.toml").is_err());
    }
}
