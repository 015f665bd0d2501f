//! Which submissions to grade or build: `--submission DIR`, or the folders of
//! `--class DIR` in name order, cut to one `--shard`.
//!
//! A submission is a folder holding one student's `exercises/ID-SLUG/`
//! crates, the layout of the course's own `exercises/`. Its name is the
//! folder's name. Hidden folders (`.git`) in a class folder are not
//! submissions.

use crate::cli::Submissions;
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// One student's submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Submission {
    /// The folder's name, which names the submission in every result.
    pub(crate) name: String,
    /// The folder, absolute.
    pub(crate) dir: PathBuf,
}

impl Submission {
    /// The student's crate of the exercise folder `dir_name` (`101-slug`), if they have one.
    pub(crate) fn crate_dir(&self, dir_name: &str) -> Option<PathBuf> {
        let dir = self.dir.join("exercises").join(dir_name);
        dir.is_dir().then_some(dir)
    }
}

/// The submissions `who` names (none when it names none), sorted and sharded.
pub(crate) fn submissions(who: &Submissions) -> Result<Vec<Submission>> {
    match (&who.submission, &who.class) {
        (Some(dir), _) => Ok(vec![open(dir)?]),
        (None, Some(class)) => {
            let all = class_members(class)?;
            Ok(match who.shard {
                Some(shard) => shard.select(all),
                None => all,
            })
        }
        (None, None) => Ok(Vec::new()),
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
