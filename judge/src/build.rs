//! `judge build --out DIR`: harness binaries built and not run, for GPU
//! machines without a Rust toolchain.
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

use crate::cli::BuildArgs;
use crate::course::Course;
use crate::exit;
use crate::grade::model::{plain, relative};
use crate::grade::output::write_atomically;
use crate::grade::plan::{self, Submission};
use crate::grade::{Prepared, ROLE, prepare};
use crate::harness::{self, Built, Spec};
use crate::manifest::Exercise;
use crate::verify::variant::{self, Materialized};
use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::io::IsTerminal;
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
    /// Its file name, `harness-ID-ROLE`.
    pub(crate) name: String,
    /// The exercise id.
    pub(crate) exercise: u32,
    /// `exercise`, `solution`, `variant-NAME` or `submission`.
    pub(crate) role: String,
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
        name: String,
        exercise: &Exercise,
        role: &str,
        submission: Option<&str>,
        status: Status,
    ) -> Self {
        Self {
            name,
            exercise: exercise.id,
            role: role.into(),
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

/// Builds every harness of the course, and those of the submissions named.
pub(crate) fn build(root: Option<&Path>, args: &BuildArgs) -> Result<u8> {
    let course = Course::open(root)?;
    let submissions = plan::submissions(&args.who)?;
    std::fs::create_dir_all(&args.out).with_context(|| {
        format!(
            "cannot create `{}`; pass another folder with `--out`",
            args.out.display()
        )
    })?;
    let mut index = Index {
        format: 1,
        judge: env!("CARGO_PKG_VERSION").into(),
        harnesses: Vec::new(),
        dir: args.out.clone(),
    };
    // The course's crates, then each submission's.
    for exercise in &course.manifest.exercises {
        for entry in course_harnesses(&course, exercise, &args.out)? {
            index.record(entry)?;
        }
    }
    for submission in &submissions {
        for exercise in &course.manifest.exercises {
            index.record(submission_harness(
                &course, submission, exercise, &args.out,
            )?)?;
        }
    }
    let (built, failed) = (
        index.count(Status::Built),
        index.count(Status::CompileError),
    );
    println!(
        "built {built} harnesses into `{}`; {failed} did not compile (see `index.json` there)",
        args.out.display()
    );
    Ok(exit::OK)
}

/// The harnesses of an exercise's own crates: the exercise, the solution, the variants.
fn course_harnesses(course: &Course, exercise: &Exercise, out: &Path) -> Result<Vec<Entry>> {
    let solution = course.solution_dir(exercise);
    let mut entries = vec![
        course_harness(
            course,
            exercise,
            &course.exercise_dir(exercise),
            "exercise",
            out,
        )?,
        course_harness(course, exercise, &solution, "solution", out)?,
    ];
    for variant in variant::load_all(&course.variants_dir(exercise))? {
        let role = format!("variant-{}", variant.name);
        let krate = if solution.is_dir() {
            match variant.materialize(course, exercise)? {
                Materialized::Crate(krate) => krate,
                Materialized::Stale(why) => {
                    entries.push(missing(exercise, &role, why, out));
                    continue;
                }
            }
        } else {
            solution.clone() // recorded as missing
        };
        entries.push(course_harness(course, exercise, &krate, &role, out)?);
    }
    Ok(entries)
}

/// Builds one of the course's crates into `out`, or records it missing.
fn course_harness(
    course: &Course,
    exercise: &Exercise,
    krate: &Path,
    role: &str,
    out: &Path,
) -> Result<Entry> {
    if !krate.join("Cargo.toml").is_file() {
        let why = format!("the course has no crate `{}`", krate.display());
        return Ok(missing(exercise, role, why, out));
    }
    let spec = Spec::new(course, exercise, krate, role)?;
    build_one(course, &spec, exercise, role, out, None)
}

/// The entry of a course harness that cannot be built, and why, said on
/// stderr; a binary left in `out` by an earlier build goes.
fn missing(exercise: &Exercise, role: &str, why: String, out: &Path) -> Entry {
    let name = format!("harness-{}-{role}", exercise.id);
    let _ = std::fs::remove_file(out.join(&name));
    let mut entry = Entry::new(name, exercise, role, None, Status::Missing);
    eprintln!("skipped `{}`: {why}", entry.name);
    entry.log = Some(why);
    entry
}

/// Builds one exercise of a submission into `out/NAME/`.
fn submission_harness(
    course: &Course,
    submission: &Submission,
    exercise: &Exercise,
    out: &Path,
) -> Result<Entry> {
    let name = format!("harness-{}-{ROLE}", exercise.id);
    let mut entry = Entry::new(
        name,
        exercise,
        ROLE,
        Some(&submission.name),
        Status::NotStarted,
    );
    match prepare(course, submission, exercise)? {
        Prepared::NotStarted => Ok(entry),
        Prepared::Broken(why) => {
            (entry.status, entry.log) = (Status::CompileError, Some(why));
            Ok(entry)
        }
        Prepared::Ready(spec) => {
            let mut entry = build_one(course, &spec, exercise, ROLE, out, Some(&submission.name))?;
            entry.log = entry.log.map(|log| relative(&log, &exercise.dir_name()));
            Ok(entry)
        }
    }
}

/// Builds `spec` and copies its binary to `out/[SUBMISSION/]NAME`.
fn build_one(
    course: &Course,
    spec: &Spec,
    exercise: &Exercise,
    role: &str,
    out: &Path,
    submission: Option<&str>,
) -> Result<Entry> {
    let relative = match submission {
        Some(name) => format!("{name}/{}", spec.name),
        None => spec.name.clone(),
    };
    let mut entry = Entry::new(
        spec.name.clone(),
        exercise,
        role,
        submission,
        Status::CompileError,
    );
    let target = out.join(&relative);
    // A binary still running elsewhere keeps its old copy; a stale one must go.
    let _ = std::fs::remove_file(&target);
    match harness::build(course, spec, std::io::stderr().is_terminal())? {
        Built::Binary(binary) => {
            let folder = target.parent().expect("a file under the output folder");
            fs_err::create_dir_all(folder)?;
            fs_err::copy(&binary, &target)?;
            (entry.status, entry.path) = (Status::Built, Some(relative.clone()));
            eprintln!("built `{relative}`");
        }
        Built::CompileError(log) => {
            entry.log = Some(plain(&log));
            eprintln!("`{relative}` does not compile (its messages are in the index)");
        }
    }
    Ok(entry)
}
