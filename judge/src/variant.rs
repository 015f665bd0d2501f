//! Known-wrong variants: one file per mistake a learner makes.
//!
//! A variant is a small edit of one of the solution's files: `src/lib.rs`,
//! or the file its `replaces:` line names. `NAME.patch` holds the edit as a
//! unified diff of that file (what `diff -u` or `git diff` writes), which is
//! applied to the solution as it is now; `NAME.rs` is instead the whole file,
//! for a mistake that reads better written out. Its first lines say what it
//! gets wrong and how the checks must react:
//!
//! ```text
//! //! mistake: copies the tokens into a Vec in the hot loop
//! //! fails: overlap_efficiency, no_blocking_call_in_steady_state
//! //! says: pageable
//! //! replaces: src/sampler.rs
//! --- a/src/sampler.rs
//! +++ b/src/sampler.rs
//! @@ -90,7 +90,7 @@
//!          let slot = self.processed % 2;
//!          self.copied[slot].synchronize()?;
//! -        let tokens = self.host_tokens[slot].to_vec();
//! +        let tokens = self.stream.to_vec(&self.tokens[slot])?;
//!          let flags = self.host_flags[slot].to_vec();
//! ```
//!
//! To write one, copy the solution's file, make the mistake in the copy, and
//! append the diff to the header lines:
//! `diff -u --label a/src/sampler.rs --label b/src/sampler.rs solutions/ID-NAME/src/sampler.rs copy.rs >> NAME.patch`.
//! A hunk finds its place by its context lines, so the solution may change
//! elsewhere; when a change touches those lines the patch no longer applies,
//! and `judge verify` and `judge build` say which hunk to regenerate.
//!
//! It is caught when every check named by `fails` fails, and the diagnosis
//! of at least one of them (what happened, where and why: not the words of
//! what the check expected) contains `says`.

use crate::course::Course;
use crate::manifest::Exercise;
use crate::report::{ExerciseReport, diagnosis};
use crate::scratch;
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// A parsed variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Variant {
    /// The file stem.
    pub(crate) name: String,
    /// Its source.
    pub(crate) path: PathBuf,
    /// The mistake, in words.
    pub(crate) mistake: String,
    /// Checks that must fail.
    pub(crate) fails: Vec<String>,
    /// Text the diagnosis must contain.
    pub(crate) says: String,
    /// The solution's file it replaces, relative to the crate (`src/lib.rs`).
    pub(crate) replaces: String,
    /// The unified diff after the header lines, for a `.patch` variant.
    patch: Option<String>,
}

#[cfg(test)]
impl Variant {
    /// A variant of nothing but its name, for tests of who gets which.
    pub(crate) fn named(name: &str) -> Self {
        Self {
            name: name.into(),
            path: PathBuf::from(name),
            mistake: String::new(),
            fails: Vec::new(),
            says: String::new(),
            replaces: "src/lib.rs".into(),
            patch: None,
        }
    }
}

/// The crate of a variant, or why it cannot be made.
#[derive(Debug)]
pub(crate) enum Materialized {
    /// A scratch copy of the solution crate with the variant in place.
    Crate(PathBuf),
    /// The variant's patch does not apply to the solution: why, and what to do.
    Stale(String),
}

/// Every variant in `dir` (none if the folder does not exist), by name.
pub(crate) fn load_all(dir: &Path) -> Result<Vec<Variant>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs" || x == "patch"))
        .collect();
    paths.sort();
    let variants: Vec<Variant> = paths.iter().map(|p| parse(p)).collect::<Result<_>>()?;
    for pair in variants.windows(2) {
        if pair[0].name == pair[1].name {
            bail!(
                "the variants `{}` and `{}` have one name; keep one of them",
                pair[0].path.display(),
                pair[1].path.display()
            );
        }
    }
    Ok(variants)
}

fn parse(path: &Path) -> Result<Variant> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the variant `{}`", path.display()))?;
    let header: Vec<&str> = text.lines().take_while(|l| l.starts_with("//!")).collect();
    let field = |key: &str| {
        header.iter().find_map(|l| {
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
    let patch = path
        .extension()
        .is_some_and(|x| x == "patch")
        .then(|| text.split_inclusive('\n').skip(header.len()).collect());
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
        patch,
    })
}

impl Variant {
    /// A scratch copy of the solution crate with this variant in place of
    /// the file it replaces, or why its patch does not apply.
    pub(crate) fn materialize(&self, course: &Course, exercise: &Exercise) -> Result<Materialized> {
        let solution = course.solution_dir(exercise);
        let source = match &self.patch {
            None => std::fs::read(&self.path)
                .with_context(|| format!("cannot read the variant `{}`", self.path.display()))?,
            Some(patch) => match self.apply(patch, course, &solution) {
                Ok(text) => text.into_bytes(),
                Err(why) => return Ok(Materialized::Stale(why)),
            },
        };
        let course_hash = crate::files::paths_hash(&[&course.root]);
        let dir = scratch::folder(course, "variants")?
            .join(format!("{}-{course_hash:08x}", exercise.dir_name()))
            .join(&self.name);
        scratch::copy_crate(&solution, &dir, &solution)?;
        let target = dir.join(&self.replaces);
        std::fs::write(&target, source)
            .with_context(|| format!("cannot write the variant to `{}`", target.display()))?;
        Ok(Materialized::Crate(dir))
    }

    /// The solution's file with `patch` applied, or why it does not apply.
    fn apply(&self, patch: &str, course: &Course, solution: &Path) -> Result<String, String> {
        let file = solution.join(&self.replaces);
        let shown = file.strip_prefix(&course.root).unwrap_or(&file).display();
        let name = &self.name;
        let patch = diffy::Patch::from_str(patch).map_err(|e| {
            format!("the variant `{name}` is not a unified diff of `{shown}` ({e}); regenerate it with `diff -u`")
        })?;
        let original = std::fs::read_to_string(&file).map_err(|_| {
            format!("the variant `{name}` patches `{shown}`, which cannot be read; name the file it changes in `//! replaces:`")
        })?;
        diffy::apply(&original, &patch).map_err(|e| {
            let hunk = e.to_string();
            let hunk = match hunk.rsplit_once('#') {
                Some((_, n)) => format!("hunk {n} does not match"),
                None => hunk,
            };
            format!("the variant `{name}` no longer applies to `{shown}`: {hunk}; regenerate it with `diff -u`")
        })
    }

    /// Whether `report` catches the variant, or why not.
    pub(crate) fn judge(&self, report: &ExerciseReport) -> Result<(), String> {
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
            diagnosis_seen |= diagnosis(&check.outcome).contains(&self.says);
        }
        if diagnosis_seen {
            Ok(())
        } else {
            Err(format!(
                "the failing checks never say `{}` in their diagnosis (what happened and why; the expectation does not count)",
                self.says
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{CheckReport, Stage};
    use judge_harness::{CheckInfo, Outcome};

    /// A report of one failed check `a`, which expected `expected` and
    /// says `actual` happened, because of `detail`.
    fn report_failing(expected: &str, actual: &str, detail: &str) -> ExerciseReport {
        let check = CheckReport {
            info: CheckInfo {
                requires: Vec::new(),
                name: "a".into(),
                title: "t".into(),
                section: "s".into(),
                points: 1,
            },
            outcome: Outcome::Failed {
                expected: expected.into(),
                actual: actual.into(),
                site: None,
                detail: Some(detail.into()),
            },
            seconds: 0.0,
        };
        ExerciseReport {
            id: 101,
            title: "t".into(),
            chapter: "c".into(),
            max_points: 1,
            backend: "virtual".into(),
            decided: crate::report::Decided::default(),
            stage: Stage::Checked {
                checks: vec![check],
            },
            output: String::new(),
            forged_lines: 0,
            artifacts: Vec::new(),
        }
    }

    fn variant_saying(says: &str) -> Variant {
        Variant {
            name: "v".into(),
            path: PathBuf::from("v.rs"),
            mistake: "m".into(),
            fails: vec!["a".into()],
            says: says.into(),
            replaces: "src/lib.rs".into(),
            patch: None,
        }
    }

    #[test]
    fn words_found_only_in_the_expectation_do_not_explain_a_variant() {
        let report = report_failing(
            "no pageable copy in the hot loop",
            "step 3 took 2 ms",
            "the CPU waited",
        );
        let err = variant_saying("pageable").judge(&report).unwrap_err();
        assert!(
            err.contains("never say `pageable` in their diagnosis"),
            "{err}"
        );
    }

    #[test]
    fn words_found_in_what_happened_or_why_explain_a_variant() {
        let report = report_failing("e", "a pageable copy at src/lib.rs:3", "d");
        assert_eq!(variant_saying("pageable").judge(&report), Ok(()));
        let report = report_failing("e", "a", "the driver staged it: a pageable copy");
        assert_eq!(variant_saying("pageable").judge(&report), Ok(()));
    }

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

    #[test]
    fn a_patch_variant_keeps_the_diff_after_its_header() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.patch");
        let diff = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-//! a\n+//! b\n";
        std::fs::write(
            &path,
            format!("//! mistake: m\n//! fails: a\n//! says: s\n{diff}"),
        )
        .unwrap();
        let variant = parse(&path).unwrap();
        assert_eq!(
            (variant.name.as_str(), variant.patch.as_deref()),
            ("p", Some(diff))
        );
        let whole = dir.path().join("w.rs");
        std::fs::write(
            &whole,
            "//! mistake: m\n//! fails: a\n//! says: s\npub fn f() {}\n",
        )
        .unwrap();
        assert_eq!(parse(&whole).unwrap().patch, None);
    }

    #[test]
    fn two_variants_of_one_name_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let header = "//! mistake: m\n//! fails: a\n//! says: s\n";
        std::fs::write(dir.join("twin.rs"), format!("{header}pub fn f() {{}}\n")).unwrap();
        assert_eq!(load_all(dir).unwrap().len(), 1);
        std::fs::write(dir.join("twin.patch"), header).unwrap();
        let err = load_all(dir).unwrap_err().to_string();
        assert!(err.contains("have one name; keep one of them"), "{err}");
    }

    #[test]
    fn diff_u_and_git_diff_output_both_apply() {
        let solution = "//! The reference.\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n";
        let hunk = "@@ -1,4 +1,4 @@\n //! The reference.\n pub fn add(a: i32, b: i32) -> i32 {\n-    a + b\n+    a - b\n }\n";
        let diff_u = "--- /tmp/a.rs\t2026-11-29 18:12:02.588236869 +0000\n+++ /tmp/b.rs\t2026-11-29 18:12:02.591556488 +0000\n";
        let git = "diff --git a/src/lib.rs b/src/lib.rs\nindex 8def346..92fbb83 100644\n--- a/src/lib.rs\n+++ b/src/lib.rs\n";
        for header in [diff_u, git] {
            let text = format!("{header}{hunk}");
            let patch = diffy::Patch::from_str(&text).unwrap();
            let applied = diffy::apply(solution, &patch).unwrap();
            assert_eq!(applied, solution.replace("a + b", "a - b"), "{header}");
        }
    }
}
