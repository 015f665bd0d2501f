//! The typed exercise manifest, `exercises/info.toml`.
//!
//! One entry per exercise: its id and slug (the folder is
//! `exercises/ID-SLUG`, mirrored by `solutions/ID-SLUG`), what the book and
//! the judge show about it, how it is graded, and its hints.

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::path::Path;

/// The whole manifest.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Manifest {
    /// The manifest format; this judge reads format 1.
    pub(crate) format: u32,
    /// The exercises, in the order the book teaches them.
    #[serde(default, rename = "exercise")]
    pub(crate) exercises: Vec<Exercise>,
}

/// One exercise.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Exercise {
    /// Three digits: `101`.
    pub(crate) id: u32,
    /// The folder name after the id: `caching-allocator`.
    pub(crate) slug: String,
    /// The title shown by `judge list`.
    pub(crate) title: String,
    /// The chapter that teaches it (a path under `chapters/`).
    pub(crate) chapter: String,
    /// 1 (warm-up) to 5 (hard).
    pub(crate) difficulty: u8,
    /// Points when grading; split over the checks by their weights.
    pub(crate) points: u32,
    /// Time limit for the whole check suite, in seconds.
    pub(crate) timeout_s: u64,
    /// Whether a real GPU changes what is checked (timing checks get real numbers).
    #[serde(default)]
    pub(crate) gpu: bool,
    /// The crate's library name, which the check suite imports.
    pub(crate) lib: String,
    /// Hints, from a nudge to nearly the answer.
    pub(crate) hints: Vec<String>,
    /// The folder of the exercise's bridge (the crate that calls the
    /// learner's crate from the judge's checker), under the course's root;
    /// `judge/bridges/exID` when not given.
    #[serde(default)]
    pub(crate) bridge: Option<String>,
}

impl Exercise {
    /// The folder name, `101-caching-allocator`.
    pub(crate) fn dir_name(&self) -> String {
        format!("{}-{}", self.id, self.slug)
    }
}

/// The manifest format this judge reads.
const FORMAT: u32 = 1;

impl Manifest {
    /// Reads and checks `path`.
    pub(crate) fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the exercise manifest `{}`", path.display()))?;
        let manifest: Manifest = toml::from_str(&text)
            .with_context(|| format!("`{}` is not a valid exercise manifest", path.display()))?;
        manifest
            .validate()
            .with_context(|| format!("in `{}`", path.display()))?;
        Ok(manifest)
    }

    fn validate(&self) -> Result<()> {
        if self.format != FORMAT {
            bail!(
                "manifest format {} is not supported; this judge reads format {FORMAT}",
                self.format
            );
        }
        let mut seen = std::collections::BTreeSet::new();
        for e in &self.exercises {
            if !(100..1000).contains(&e.id) {
                bail!("exercise id `{}` must have three digits", e.id);
            }
            if !seen.insert(e.id) {
                bail!("exercise id `{}` appears twice", e.id);
            }
            let slug_ok = !e.slug.is_empty()
                && e.slug
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            if !slug_ok {
                bail!(
                    "exercise {}: slug `{}` must be lowercase letters, digits and `-`",
                    e.id,
                    e.slug
                );
            }
            if e.hints.is_empty() {
                bail!("exercise {}: give at least one hint", e.id);
            }
            if !(1..=5).contains(&e.difficulty) || e.timeout_s == 0 {
                bail!(
                    "exercise {}: difficulty must be 1 to 5 and `timeout_s` positive",
                    e.id
                );
            }
        }
        Ok(())
    }

    /// The exercise `id`, or an error listing the known ids.
    pub(crate) fn get(&self, id: &str) -> Result<&Exercise> {
        let wanted = id.trim();
        self.exercises
            .iter()
            .find(|e| e.id.to_string() == wanted || e.dir_name() == wanted || e.slug == wanted)
            .ok_or_else(|| {
                let known: Vec<String> = self.exercises.iter().map(|e| e.id.to_string()).collect();
                let message = if known.is_empty() {
                    format!("exercise `{wanted}` not found: the manifest lists no exercises yet")
                } else {
                    format!(
                        "exercise `{wanted}` not found (known exercises: {}); `judge list` shows them",
                        known.join(", ")
                    )
                };
                crate::usage::Usage(message).into()
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Manifest> {
        let m: Manifest = toml::from_str(text)?;
        m.validate()?;
        Ok(m)
    }

    const ONE: &str = r#"
format = 1
[[exercise]]
id = 101
slug = "caching-allocator"
title = "A caching allocator"
chapter = "allocator.md"
difficulty = 3
points = 100
timeout_s = 60
lib = "caching_allocator"
hints = ["think of pools"]
"#;

    #[test]
    fn finds_exercises_by_id_folder_or_slug() {
        let m = parse(ONE).unwrap();
        for key in ["101", "101-caching-allocator", "caching-allocator"] {
            assert_eq!(m.get(key).unwrap().id, 101);
        }
        let err = m.get("102").unwrap_err().to_string();
        assert_eq!(
            err,
            "exercise `102` not found (known exercises: 101); `judge list` shows them"
        );
    }

    #[test]
    fn rejects_bad_entries() {
        let dup = format!("{ONE}{}", ONE.replace("format = 1", ""));
        assert!(
            parse(&dup)
                .unwrap_err()
                .to_string()
                .contains("appears twice")
        );
        assert!(parse(&ONE.replace("hints = [\"think of pools\"]", "hints = []")).is_err());
        assert!(parse(&ONE.replace("id = 101", "id = 7")).is_err());
        assert!(parse(&ONE.replace("format = 1", "format = 2")).is_err());
        assert!(
            parse(&ONE.replace("slug = \"caching-allocator\"", "slug = \"Bad Slug\"")).is_err()
        );
        assert!(
            parse(&ONE.replace("lib =", "library =")).is_err(),
            "unknown fields are refused"
        );
    }
}
