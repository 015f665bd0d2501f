//! Prebuilt harnesses: binaries built and not run (`judge build --out DIR`),
//! for GPU machines without a Rust toolchain, and their index.
//!
//! For every exercise of the manifest it builds its checker (`checker-ID`:
//! the suite and the bridge, which decides the verdicts on every backend),
//! and, for the exercise crate, the solution and each known-wrong variant
//! (`judge/variants/ID/NAME.patch` applied to the solution, or `NAME.rs` in
//! place of the solution's file it replaces), the agent the checker calls
//! (`agent-ID-ROLE`), and with `--in-process` the harness that links the
//! crate with the suite too (`harness-ID-ROLE`, for runs decided in the
//! learner's process), and copies each to `DIR/NAME`, where `judge run
//! --prebuilt DIR` looks. With `--submission`
//! or `--class` (and `--shard`) it also builds each submission's agents and
//! harnesses from the same scratch copies `judge grade` makes, into
//! `DIR/SUBMISSION/`, for `judge grade --prebuilt DIR`.
//!
//! A crate that does not compile is recorded, not fatal; so is a variant
//! whose patch no longer applies to the solution (`missing`, with the hunk
//! to regenerate in its log, and named on stderr). `DIR/index.json`,
//! rewritten after each build, lists every harness:
//!
//! ```text
//! {"format": 1, "judge": "0.1.0", "harnesses": [{
//!     "name": "harness-101-submission",  the file name
//!     "kind": "harness | agent | checker",
//!     "exercise": 101,
//!     "role": "exercise | solution | variant-NAME | submission",
//!     "submission": "ada",               for a submission's harness
//!     "path": "ada/harness-101-submission",  under DIR, when built
//!     "status": "built | compile_error | not_started | missing",
//!     "log": "..."                        the compiler's messages, or why it is missing
//! }]}
//! ```
//!
//! Just under 500 lines: building each kind of harness, recording it in
//! the index and taking back a submission's scratch are one walk over the
//! course, and read best together.

use crate::cache::{self, Cache};
use crate::compile::{self, Built, Kind, Spec};
use crate::course::Course;
use crate::files::write_atomically;
use crate::manifest::Exercise;
use crate::role::Role;
use crate::sandbox::Sandbox;
use crate::submission::{Prepared, Submission, prepare};
use crate::text::{plain, relative};
use crate::ticker::Shown;
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

/// What a binary of the index is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum BinaryKind {
    /// A harness that links the crate with the suite.
    #[default]
    Harness,
    /// An agent: the crate, called by its exercise's checker.
    Agent,
    /// A checker: the suite and the bridge.
    Checker,
}

impl From<BinaryKind> for Kind {
    fn from(kind: BinaryKind) -> Self {
        match kind {
            BinaryKind::Harness => Self::Harness,
            BinaryKind::Agent => Self::Agent,
            BinaryKind::Checker => Self::Checker,
        }
    }
}

/// One harness of the index.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// Its file name: `harness-ID-ROLE`, `agent-ID-ROLE` or `checker-ID`.
    pub(crate) name: String,
    /// What it is.
    #[serde(default)]
    pub(crate) kind: BinaryKind,
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
    fn new(
        exercise: &Exercise,
        (role, kind): (&Role, BinaryKind),
        submission: Option<&str>,
        status: Status,
    ) -> Self {
        let name = match kind {
            BinaryKind::Harness => role.harness_name(exercise.id),
            BinaryKind::Agent => role.binary_name("agent", exercise.id),
            BinaryKind::Checker => format!("checker-{}", exercise.id),
        };
        Self {
            name,
            kind,
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

    /// The folder the index is in, where the course's binaries are.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
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
    progress: Shown,
    sandbox: &'c Sandbox,
    /// The kinds of binary each crate is built as: its agent, and its
    /// harness too when the folder is for `--in-process` runs.
    kinds: &'static [BinaryKind],
    /// The judge's cache, which submissions' builds start from.
    cache: Option<Cache>,
    events: &'e mut dyn FnMut(BuildEvent<'_>),
}

/// Builds every checker and agent of the course (and, with `in_process`,
/// every harness), then those of `submissions` (in the sandbox, each
/// submission in its own target folder), into `out`, rewriting
/// `out/index.json` after each.
pub(crate) fn build_all(
    course: &Course,
    submissions: &[Submission],
    out: &Path,
    (progress, in_process): (Shown, bool),
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
        kinds: match in_process {
            true => &[BinaryKind::Agent, BinaryKind::Harness],
            false => &[BinaryKind::Agent],
        },
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
            for entry in builder.submission_harnesses(submission, exercise)? {
                index.record(entry)?;
            }
        }
        // Its binaries are copied out: its scratch folder goes.
        submission.remove_scratch(course)?;
    }
    Ok(Counts {
        built: index.count(Status::Built),
        failed: index.count(Status::CompileError),
    })
}

impl Builder<'_, '_> {
    /// The binaries of an exercise's own crates: its checker, then the
    /// agents and harnesses of the exercise, the solution, the variants.
    fn course_harnesses(&mut self, exercise: &Exercise) -> Result<Vec<Entry>> {
        let course = self.course;
        let solution = course.solution_dir(exercise);
        let mut entries = vec![self.checker(exercise)?];
        entries.extend(self.course_harness(
            exercise,
            &course.exercise_dir(exercise),
            Role::Exercise,
        )?);
        entries.extend(self.course_harness(exercise, &solution, Role::Solution)?);
        for variant in variant::load_all(&course.variants_dir(exercise))? {
            let role = Role::Variant(variant.name.clone());
            let krate = if solution.is_dir() {
                match variant.materialize(course, exercise)? {
                    Materialized::Crate(krate) => krate,
                    Materialized::Stale(why) => {
                        for &kind in self.kinds {
                            entries.push(self.missing(exercise, (&role, kind), why.clone()));
                        }
                        continue;
                    }
                }
            } else {
                solution.clone() // recorded as missing
            };
            entries.extend(self.course_harness(exercise, &krate, role)?);
        }
        Ok(entries)
    }

    /// Builds the exercise's checker (from the solution's path: it builds
    /// no crate of the course's but the bridge).
    fn checker(&mut self, exercise: &Exercise) -> Result<Entry> {
        let role = Role::Solution;
        if !self
            .course
            .solution_dir(exercise)
            .join("Cargo.toml")
            .is_file()
        {
            let why = "the course has no solution to name its checker after".to_string();
            return Ok(self.missing(exercise, (&role, BinaryKind::Checker), why));
        }
        let spec = Spec::checker(self.course, exercise)?;
        let entry = Entry::new(
            exercise,
            (&role, BinaryKind::Checker),
            None,
            Status::CompileError,
        );
        self.build_one(&spec, entry)
    }

    /// Builds one of the course's crates as an agent and as a harness, or
    /// records them missing.
    fn course_harness(
        &mut self,
        exercise: &Exercise,
        krate: &Path,
        role: Role,
    ) -> Result<Vec<Entry>> {
        let mut entries = Vec::new();
        for &kind in self.kinds {
            if !krate.join("Cargo.toml").is_file() {
                let why = format!("the course has no crate `{}`", krate.display());
                entries.push(self.missing(exercise, (&role, kind), why));
                continue;
            }
            let spec = Spec::new(self.course, exercise, krate, &role, kind.into())?;
            let entry = Entry::new(exercise, (&role, kind), None, Status::CompileError);
            entries.push(self.build_one(&spec, entry)?);
        }
        Ok(entries)
    }

    /// The entry of a course harness that cannot be built, and why; a
    /// binary left in the folder by an earlier build goes.
    fn missing(&mut self, exercise: &Exercise, what: (&Role, BinaryKind), why: String) -> Entry {
        let mut entry = Entry::new(exercise, what, None, Status::Missing);
        let _ = std::fs::remove_file(self.out.join(&entry.name));
        (self.events)(BuildEvent::Skipped {
            name: &entry.name,
            why: &why,
        });
        entry.log = Some(why);
        entry
    }

    /// Builds one exercise of a submission, as an agent and as a
    /// harness, into `out/NAME/`.
    fn submission_harnesses(
        &mut self,
        submission: &Submission,
        exercise: &Exercise,
    ) -> Result<Vec<Entry>> {
        let role = Role::Submission;
        let prepared = prepare(
            self.course,
            submission,
            exercise,
            self.cache.as_ref(),
            self.sandbox,
        )?;
        let mut entries = Vec::new();
        for &kind in self.kinds {
            let name = Some(submission.name.as_str());
            let mut entry = Entry::new(exercise, (&role, kind), name, Status::NotStarted);
            match &prepared {
                Prepared::NotStarted => {}
                Prepared::Broken(why) => {
                    (entry.status, entry.log) = (Status::CompileError, Some(why.clone()));
                }
                Prepared::Ready(spec, _) => {
                    entry.status = Status::CompileError;
                    let spec = spec.as_kind(self.course, exercise, kind.into())?;
                    entry = self.build_one(&spec, entry)?;
                    entry.log = entry.log.map(|log| relative(&log, &exercise.dir_name()));
                }
            }
            entries.push(entry);
        }
        Ok(entries)
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
        let limit = self.sandbox.config().build_timeout;
        match compile::build(self.course, spec, self.sandbox, self.progress, limit)? {
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
            "no prebuilt harness `{name}` in `{}`; build it on a machine with Rust: `judge build --out {}`{}",
            dir.display(),
            dir.display(),
            match name.starts_with("harness-") {
                true =>
                    " --in-process (a harness is built only for runs decided in the learner's process)",
                false => "",
            }
        );
    }
    Ok(fs_err::canonicalize(&path)?)
}
