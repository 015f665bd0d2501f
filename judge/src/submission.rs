//! Which submissions to grade or build (`--submission DIR`, or the folders
//! of `--class DIR` in name order, cut to one `--shard`), and a
//! submission's crate of one exercise made ready to build.
//!
//! A submission is a folder holding one student's `exercises/ID-SLUG/`
//! crates, the layout of the course's own `exercises/`. Its name is the
//! folder's name. Hidden folders (`.git`) in a class folder are not
//! submissions.
//!
//! A submission's scratch folder holds everything its builds use and write:
//! the crates the judge takes from it ([`crate::intake`]), the generated
//! harnesses (`harness/`), its own target folder (`target/`, a copy of the
//! judge's cache, [`crate::cache`]) and the builds' home (`home/`). It
//! lasts as long as the submission's grading (or its builds, `judge
//! build`): then it is removed ([`Submission::remove_scratch`]), so that a
//! class takes the disk of the submissions graded at once, whatever its size.

mod shard;

pub(crate) use shard::Shard;

use crate::cache::{self, Cache};
use crate::compile::{Kind, Spec};
use crate::course::Course;
use crate::intake::{self, GradedFile, Intake, Source};
use crate::manifest::Exercise;
use crate::role::Role;
use crate::sandbox::Sandbox;
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
    /// What the judge noticed about the entry itself, when a class folder's
    /// entry is no folder (an archive left packed): it gets a row, nothing
    /// in it graded, and this says why.
    pub(crate) note: Option<String>,
}

impl Submission {
    /// Where the judge copies this submission's crates: one folder per
    /// course and submission path, named by the judge (a hash of the two
    /// paths), never after the student: whatever the submission folder is
    /// called, its scratch folder's name fits the file system.
    pub(crate) fn scratch_dir(&self, course: &Course) -> Result<PathBuf> {
        let paths = [course.root.as_os_str(), self.dir.as_os_str()];
        let bytes: Vec<u8> = paths
            .iter()
            .flat_map(|p| p.as_encoded_bytes().iter().chain(b"\0"))
            .copied()
            .collect();
        let hash = &crate::files::sha256_hex(&bytes)[..16];
        Ok(scratch::folder(course, "grade")?.join(hash))
    }

    /// Removes this submission's scratch folder, once its grading or its
    /// builds have ended: nothing in it is used again (grading it again
    /// starts from the judge's cache, and rebuilds its crates alone).
    pub(crate) fn remove_scratch(&self, course: &Course) -> Result<()> {
        let dir = self.scratch_dir(course)?;
        match std::fs::remove_dir_all(&dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e)
                .with_context(|| format!("cannot remove the scratch folder `{}`", dir.display())),
            _ => Ok(()),
        }
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
    /// The folder is there but cannot be taken (a symbolic link, a file
    /// that is not UTF-8, ...): why.
    Broken(String),
    /// The crate the judge built from it, its harness, and the files taken.
    Ready(Box<Spec>, Vec<GradedFile>),
}

/// Takes the submission's crate of `exercise` into its scratch folder
/// ([`crate::intake`]), with the course's manifest; with a `cache`, makes
/// the submission's target folder a copy of it.
pub(crate) fn prepare(
    course: &Course,
    submission: &Submission,
    exercise: &Exercise,
    cache: Option<&Cache>,
    sandbox: &Sandbox,
) -> Result<Prepared> {
    let folder = exercise.dir_name();
    let relative = Path::new("exercises").join(&folder);
    if std::fs::symlink_metadata(submission.dir.join(&relative)).is_err()
        || !has_sources(&submission.dir.join(&relative))
    {
        return Ok(Prepared::NotStarted);
    }
    let scratch = submission.scratch_dir(course)?;
    label(&scratch, submission)?;
    let krate = scratch.join(&folder);
    let source = Source {
        submission: &submission.dir,
        folder: &relative,
    };
    let home = course.exercise_dir(exercise);
    let files = match intake::take(&source, &krate, &home.join("Cargo.toml"), &home)? {
        Intake::Taken(files) => files,
        Intake::Refused(why) => return Ok(Prepared::Broken(why)),
    };
    let spec = Spec::new(course, exercise, &krate, &Role::Submission, Kind::Harness)?
        .isolated_in(&scratch);
    if let Some(cache) = cache {
        cache::seed(cache, &spec.target, sandbox)?;
    }
    Ok(Prepared::Ready(Box::new(spec), files))
}

/// Whether the exercise folder `dir` holds anything to grade: a `src/` that
/// is not a folder of real files (a link, which the intake refuses by name),
/// or a folder with a `.rs` file in it. An empty folder, or one with no
/// source yet, is not started.
fn has_sources(dir: &Path) -> bool {
    let src = dir.join("src");
    match std::fs::symlink_metadata(&src) {
        Err(_) => std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()),
        Ok(meta) if !meta.is_dir() => true,
        Ok(_) => walkdir::WalkDir::new(&src)
            .follow_links(false)
            .into_iter()
            .flatten()
            .any(|e| e.file_type().is_symlink() || e.path().extension().is_some_and(|x| x == "rs")),
    }
}

/// Writes whose scratch folder `scratch` is into its `SUBMISSION` file (the
/// folder's name is a hash): the submission's folder, for a person.
fn label(scratch: &Path, submission: &Submission) -> Result<()> {
    let file = scratch.join("SUBMISSION");
    let text = format!("{}\n", submission.dir.display());
    if std::fs::read_to_string(&file).is_ok_and(|t| t == text) {
        return Ok(());
    }
    fs_err::create_dir_all(scratch)?;
    Ok(fs_err::write(file, text)?)
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
        note: None,
    })
}

/// An entry of a class folder that is no folder: a submission of nothing,
/// whose note says what it is and what to do.
fn stray(entry: &std::fs::DirEntry) -> Submission {
    let name = entry.file_name().to_string_lossy().into_owned();
    let what = match entry.metadata() {
        Ok(meta) if meta.is_file() => {
            let archive = [".zip", ".tar", ".tgz", ".gz", ".xz", ".7z"]
                .iter()
                .any(|x| name.to_lowercase().ends_with(x));
            let size = meta.len();
            match archive {
                true => format!("an archive of {size} bytes, not unpacked"),
                false => format!("a file of {size} bytes"),
            }
        }
        Ok(_) => "neither a file nor a folder".to_string(),
        Err(_) => "a link to nothing".to_string(),
    };
    Submission {
        dir: std::path::absolute(entry.path()).unwrap_or_else(|_| entry.path()),
        note: Some(format!(
            "`{name}` in the class folder is {what}, not a submission folder: nothing in it was graded; a submission is a folder holding `exercises/` (unpack an archive into `{}/` and grade again)",
            name.split('.')
                .next()
                .filter(|s| !s.is_empty())
                .unwrap_or("NAME")
        )),
        name,
    }
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
        if hidden {
            continue;
        }
        if entry.path().is_dir() {
            members.push(open(&entry.path())?);
        } else {
            members.push(stray(&entry));
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
