//! Prebuilt harnesses: binaries built and not run (`judge build --out DIR`),
//! for GPU machines without a Rust toolchain, and their index.
//!
//! For every exercise of the manifest it builds the harness of the exercise
//! crate (`harness-ID-exercise`), of the solution (`harness-ID-solution`)
//! and of each known-wrong variant (`judge/variants/ID/NAME.patch` applied to
//! the solution, or `NAME.rs` in place of the solution's file it replaces:
//! `harness-ID-variant-NAME`), and copies each
//! to `DIR/NAME`, where `judge run --prebuilt DIR` looks. With `--submission`
//! or `--class` (and `--shard`) it also builds each submission's harnesses
//! from the same scratch copies `judge grade` makes, into
//! `DIR/SUBMISSION/harness-ID-submission`, for `judge grade --prebuilt DIR`.
//!
//! A crate that does not compile is recorded, not fatal; so is a variant
//! whose patch no longer applies to the solution (`missing`, with the hunk
//! to regenerate in its log, and named on stderr). `DIR/index.json`,
//! rewritten after each build, lists every harness:
//!
//! ```text
//! {"format": 1, "judge": "0.1.0", "harnesses": [{
//!     "name": "harness-101-submission",  the file name
//!     "exercise": 101,
//!     "role": "exercise | solution | variant-NAME | submission",
//!     "submission": "ada",               for a submission's harness
//!     "path": "ada/harness-101-submission",  under DIR, when built
//!     "status": "built | compile_error | not_started | missing",
//!     "log": "..."                        the compiler's messages, or why it is missing
//! }]}
//! ```

use crate::cache::{self, Cache};
use crate::compile::{self, Built, Spec};
use crate::course::Course;
use crate::files::write_atomically;
use crate::manifest::Exercise;
use crate::role::Role;
use crate::sandbox::Sandbox;
use crate::submission::{Prepared, Submission, prepare};
use crate::text::{plain, relative};
use crate::variant::{self, Materialized};
use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How far a harness got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    /// Its binary is in the folder.
    Built,
    /// Its crate does not compile.
    CompileError,
    /// The submission has no crate for the exercise.
    NotStarted,
    /// The course has no such crate, or a variant's patch no longer applies.
    Missing,
}

/// One harness of the index.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// Its file name, `harness-ID-ROLE` ([`Role::harness_name`]).
    pub(crate) name: String,
    /// The exercise id.
    pub(crate) exercise: u32,
    /// Whose crate: `exercise`, `solution`, `variant-NAME` or `submission`.
    pub(crate) role: Role,
    /// The submission it belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) submission: Option<String>,
    /// The binary, relative to the index's folder, when built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) path: Option<String>,
    /// How far it got.
    pub(crate) status: Status,
    /// The compiler's messages, or why there is no binary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) log: Option<String>,
}

impl Entry {
    /// An entry with no binary and no log yet.
    fn new(exercise: &Exercise, role: &Role, submission: Option<&str>, status: Status) -> Self {
        Self {
            name: role.harness_name(exercise.id),
            exercise: exercise.id,
            role: role.clone(),
            submission: submission.map(str::to_string),
            path: None,
            status,
            log: None,
        }
    }
}

/// `index.json`: what a build folder holds.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Index {
    /// This layout's version.
    format: u32,
    /// The judge that built it.
    judge: String,
    /// Every harness, in build order.
    harnesses: Vec<Entry>,
    /// The folder, once loaded.
    #[serde(skip)]
    dir: PathBuf,
}

/// Where `grade --prebuilt` finds a submission's harness.
#[derive(Debug)]
pub(crate) enum Prebuilt {
    /// The folder holding its binary.
    Folder(PathBuf),
    /// It did not compile: the compiler's messages.
    CompileError(String),
}

impl Index {
    /// Reads `dir/index.json`.
    pub(crate) fn load(dir: &Path) -> Result<Self> {
        let path = dir.join("index.json");
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "no `index.json` in `{}`; build the harnesses there first: `judge build --out {}`",
                dir.display(),
                dir.display()
            )
        })?;
        let mut index: Index = serde_json::from_str(&text).with_context(|| {
            format!(
                "`{}` is not an index written by `judge build`",
                path.display()
            )
        })?;
        if index.format != 1 {
            bail!(
                "`{}` has format {}; this judge reads format 1: build again with this judge",
                path.display(),
                index.format
            );
        }
        index.dir = dir.to_path_buf();
        Ok(index)
    }

    /// The harness `name` of `submission`.
    pub(crate) fn submission_harness(&self, submission: &str, name: &str) -> Result<Prebuilt> {
        let entry = self
            .harnesses
            .iter()
            .find(|e| e.submission.as_deref() == Some(submission) && e.name == name);
        match entry {
            Some(e) if e.status == Status::Built => Ok(Prebuilt::Folder(self.dir.join(submission))),
            Some(e) if e.status == Status::CompileError => {
                Ok(Prebuilt::CompileError(e.log.clone().unwrap_or_default()))
            }
            _ => bail!(
                "`{}` has no harness `{name}` of submission `{submission}`; build it on a machine with Rust: `judge build --out {} --submission DIR`",
                self.dir.join("index.json").display(),
                self.dir.display()
            ),
        }
    }

    /// Adds `entry` and rewrites the index.
    fn record(&mut self, entry: Entry) -> Result<()> {
        self.harnesses.push(entry);
        let text = serde_json::to_string_pretty(self).expect("an index serializes") + "\n";
        write_atomically(&self.dir.join("index.json"), &text)
    }

    fn count(&self, status: Status) -> usize {
        self.harnesses.iter().filter(|e| e.status == status).count()
    }
}

/// What building reports as it goes, for the verb to show.
#[derive(Debug)]
pub(crate) enum BuildEvent<'a> {
    /// A harness was built and copied to `DIR/RELATIVE`.
    Built(&'a str),
    /// A harness's crate does not compile (its messages are in the index).
    CompileError(&'a str),
    /// A course harness cannot be built at all, and why.
    Skipped {
        /// The harness.
        name: &'a str,
        /// Why.
        why: &'a str,
    },
}

/// How many harnesses a build made, and how many did not compile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Binaries in the folder.
    pub(crate) built: usize,
    /// Crates that did not compile.
    pub(crate) failed: usize,
}

/// A build of harnesses into one folder, reporting each through `events`.
struct Builder<'c, 'e> {
    course: &'c Course,
    out: &'c Path,
    progress: bool,
    sandbox: &'c Sandbox,
    /// The judge's cache, which submissions' builds start from.
    cache: Option<Cache>,
    events: &'e mut dyn FnMut(BuildEvent<'_>),
}

/// Builds every harness of the course, then those of `submissions` (in the
/// sandbox, each submission in its own target folder), into `out`,
/// rewriting `out/index.json` after each.
pub(crate) fn build_all(
    course: &Course,
    submissions: &[Submission],
    out: &Path,
    progress: bool,
    sandbox: &Sandbox,
    events: &mut dyn FnMut(BuildEvent<'_>),
) -> Result<Counts> {
    std::fs::create_dir_all(out).with_context(|| {
        format!(
            "cannot create `{}`; pass another folder with `--out`",
            out.display()
        )
    })?;
    let mut index = Index {
        format: 1,
        judge: env!("CARGO_PKG_VERSION").into(),
        harnesses: Vec::new(),
        dir: out.to_path_buf(),
    };
    let cache = match submissions.is_empty() {
        true => None,
        false => cache::for_course(course)?,
    };
    let mut builder = Builder {
        course,
        out,
        progress,
        sandbox,
        cache,
        events,
    };
    for exercise in &course.manifest.exercises {
        for entry in builder.course_harnesses(exercise)? {
            index.record(entry)?;
        }
    }
    for submission in submissions {
        for exercise in &course.manifest.exercises {
            index.record(builder.submission_harness(submission, exercise)?)?;
        }
    }
    Ok(Counts {
        built: index.count(Status::Built),
        failed: index.count(Status::CompileError),
    })
}

impl Builder<'_, '_> {
    /// The harnesses of an exercise's own crates: the exercise, the solution, the variants.
    fn course_harnesses(&mut self, exercise: &Exercise) -> Result<Vec<Entry>> {
        let course = self.course;
        let solution = course.solution_dir(exercise);
        let mut entries = vec![
            self.course_harness(exercise, &course.exercise_dir(exercise), Role::Exercise)?,
            self.course_harness(exercise, &solution, Role::Solution)?,
        ];
        for variant in variant::load_all(&course.variants_dir(exercise))? {
            let role = Role::Variant(variant.name.clone());
            let krate = if solution.is_dir() {
                match variant.materialize(course, exercise)? {
                    Materialized::Crate(krate) => krate,
                    Materialized::Stale(why) => {
                        entries.push(self.missing(exercise, &role, why));
                        continue;
                    }
                }
            } else {
                solution.clone() // recorded as missing
            };
            entries.push(self.course_harness(exercise, &krate, role)?);
        }
        Ok(entries)
    }

    /// Builds one of the course's crates, or records it missing.
    fn course_harness(&mut self, exercise: &Exercise, krate: &Path, role: Role) -> Result<Entry> {
        if !krate.join("Cargo.toml").is_file() {
            let why = format!("the course has no crate `{}`", krate.display());
            return Ok(self.missing(exercise, &role, why));
        }
        let spec = Spec::new(self.course, exercise, krate, &role)?;
        self.build_one(
            &spec,
            Entry::new(exercise, &role, None, Status::CompileError),
        )
    }

    /// The entry of a course harness that cannot be built, and why; a
    /// binary left in the folder by an earlier build goes.
    fn missing(&mut self, exercise: &Exercise, role: &Role, why: String) -> Entry {
        let mut entry = Entry::new(exercise, role, None, Status::Missing);
        let _ = std::fs::remove_file(self.out.join(&entry.name));
        (self.events)(BuildEvent::Skipped {
            name: &entry.name,
            why: &why,
        });
        entry.log = Some(why);
        entry
    }

    /// Builds one exercise of a submission into `out/NAME/`.
    fn submission_harness(
        &mut self,
        submission: &Submission,
        exercise: &Exercise,
    ) -> Result<Entry> {
        let role = Role::Submission;
        let mut entry = Entry::new(exercise, &role, Some(&submission.name), Status::NotStarted);
        match prepare(
            self.course,
            submission,
            exercise,
            self.cache.as_ref(),
            self.sandbox,
        )? {
            Prepared::NotStarted => Ok(entry),
            Prepared::Broken(why) => {
                (entry.status, entry.log) = (Status::CompileError, Some(why));
                Ok(entry)
            }
            Prepared::Ready(spec, _) => {
                entry.status = Status::CompileError;
                let mut entry = self.build_one(&spec, entry)?;
                entry.log = entry.log.map(|log| relative(&log, &exercise.dir_name()));
                Ok(entry)
            }
        }
    }

    /// Builds `spec` and copies its binary to `out/[SUBMISSION/]NAME`,
    /// filling in `entry`.
    fn build_one(&mut self, spec: &Spec, mut entry: Entry) -> Result<Entry> {
        let relative = match &entry.submission {
            Some(name) => format!("{name}/{}", spec.name),
            None => spec.name.clone(),
        };
        let target = self.out.join(&relative);
        // A binary still running elsewhere keeps its old copy; a stale one must go.
        let _ = std::fs::remove_file(&target);
        match compile::build(self.course, spec, self.sandbox, self.progress)? {
            Built::Binary(binary) => {
                let folder = target.parent().expect("a file under the output folder");
                fs_err::create_dir_all(folder)?;
                fs_err::copy(&binary, &target)?;
                (entry.status, entry.path) = (Status::Built, Some(relative.clone()));
                (self.events)(BuildEvent::Built(&relative));
            }
            Built::CompileError(log) => {
                entry.log = Some(plain(&log));
                (self.events)(BuildEvent::CompileError(&relative));
            }
        }
        Ok(entry)
    }
}

/// The prebuilt harness `name` in `dir`.
pub(crate) fn binary(dir: &Path, name: &str) -> Result<PathBuf> {
    let path = dir.join(name);
    if !path.is_file() {
        bail!(
            "no prebuilt harness `{name}` in `{}`; build it on a machine with Rust: `judge build --out {}`",
            dir.display(),
            dir.display()
        );
    }
    Ok(fs_err::canonicalize(&path)?)
}
