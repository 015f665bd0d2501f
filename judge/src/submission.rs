//! Which submissions to grade or build (`--submission DIR`, or the folders
//! of `--class DIR` in name order, cut to one `--shard`), and a
//! submission's crate of one exercise made ready to build.
//!
//! A submission is a folder holding one student's `exercises/ID-SLUG/`
//! crates, the layout of the course's own `exercises/`. Its name is the
//! folder's name. Hidden folders (`.git`) in a class folder are not
//! submissions.

mod shard;

pub(crate) use shard::Shard;

use crate::compile::Spec;
use crate::course::Course;
use crate::files::paths_hash;
use crate::manifest::Exercise;
use crate::role::Role;
use crate::scratch;
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// Whose work the instructor named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Whose {
    /// Nobody's (`judge build` of the course alone).
    Nobody,
    /// One submission folder.
    One(PathBuf),
    /// A class folder, every folder in it one submission, maybe one shard of it.
    Class {
        /// The class folder.
        dir: PathBuf,
        /// The shard, if any.
        shard: Option<Shard>,
    },
}

/// One student's submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Submission {
    /// The folder's name, which names the submission in every result.
    pub(crate) name: String,
    /// The folder, absolute.
    pub(crate) dir: PathBuf,
}

impl Submission {
    /// Where the judge copies this submission's crates: one folder per
    /// course and submission path, stable across runs (so that builds are
    /// incremental).
    pub(crate) fn scratch_dir(&self, course: &Course) -> Result<PathBuf> {
        let hash = paths_hash(&[&course.root, &self.dir]);
        Ok(scratch::folder(course, "grade")?.join(format!("{}-{hash:08x}", self.name)))
    }

    /// The student's crate of the exercise folder `dir_name` (`101-slug`), if they have one.
    pub(crate) fn crate_dir(&self, dir_name: &str) -> Option<PathBuf> {
        let dir = self.dir.join("exercises").join(dir_name);
        dir.is_dir().then_some(dir)
    }
}

/// The submissions `whose` names, sorted and sharded.
pub(crate) fn submissions(whose: &Whose) -> Result<Vec<Submission>> {
    match whose {
        Whose::One(dir) => Ok(vec![open(dir)?]),
        Whose::Class { dir, shard } => {
            let all = class_members(dir)?;
            Ok(match shard {
                Some(shard) => shard.select(all),
                None => all,
            })
        }
        Whose::Nobody => Ok(Vec::new()),
    }
}

/// A submission's crate of one exercise, made ready to build.
#[derive(Debug)]
pub(crate) enum Prepared {
    /// The submission has no folder for the exercise.
    NotStarted,
    /// The folder is there but cannot be built (no or a broken `Cargo.toml`): why.
    Broken(String),
    /// The scratch copy, and its harness.
    Ready(Box<Spec>),
}

/// Copies the submission's crate of `exercise` into the scratch folder.
pub(crate) fn prepare(
    course: &Course,
    submission: &Submission,
    exercise: &Exercise,
) -> Result<Prepared> {
    let folder = exercise.dir_name();
    let Some(from) = submission.crate_dir(&folder) else {
        return Ok(Prepared::NotStarted);
    };
    let krate = submission.scratch_dir(course)?.join(&folder);
    scratch::copy_crate(&from, &krate, &course.exercise_dir(exercise))?;
    if !from.join("Cargo.toml").is_file() {
        return Ok(Prepared::Broken(format!(
            "the submission's `exercises/{folder}` has no `Cargo.toml`"
        )));
    }
    match Spec::new(course, exercise, &krate, &Role::Submission) {
        Ok(spec) => Ok(Prepared::Ready(Box::new(spec))),
        Err(err) => Ok(Prepared::Broken(format!(
            "the submission's `exercises/{folder}` cannot be built: {err:#}"
        ))),
    }
}

/// One submission folder.
fn open(dir: &Path) -> Result<Submission> {
    let absolute = dir.canonicalize().ok().filter(|d| d.is_dir()).with_context(|| {
        format!(
            "the submission folder `{}` does not exist; pass the folder that holds the student's `exercises/`",
            dir.display()
        )
    })?;
    let named = match dir.components().next_back() {
        Some(std::path::Component::Normal(name)) => Some(name),
        _ => absolute.file_name(),
    };
    let name = named
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "submission".into());
    Ok(Submission {
        name,
        dir: absolute,
    })
}

/// Every submission folder of a class, in name order.
fn class_members(class: &Path) -> Result<Vec<Submission>> {
    let entries = std::fs::read_dir(class).with_context(|| {
        format!(
            "the class folder `{}` does not exist; pass a folder with one folder per submission",
            class.display()
        )
    })?;
    let mut members = Vec::new();
    for entry in entries {
        let entry =
            entry.with_context(|| format!("cannot read the class folder `{}`", class.display()))?;
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if entry.path().is_dir() && !hidden {
            members.push(open(&entry.path())?);
        }
    }
    if members.is_empty() {
        bail!(
            "the class folder `{}` holds no submission folders; it needs one folder per student, each with its `exercises/`",
            class.display()
        );
    }
    members.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(members)
}
