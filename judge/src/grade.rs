//! `judge grade`: instructor mode. Every exercise of the course, for one
//! submission or a class of them, judged with the judge's own checks.
//!
//! For each submission and each exercise of the manifest, in order: the
//! student's crate (`SUBMISSION/exercises/ID-SLUG/`) is copied, its
//! `Cargo.toml` and `src/` only, into the scratch folder
//! ([`scratch`]), then built with the judge's check suite and run under the
//! exercise's time limit, like `judge run` (with `--prebuilt DIR`, the
//! harnesses `judge build` made are run instead). A missing exercise folder
//! is a result, `not_started`, worth no points. The results are rewritten
//! after each exercise ([`output`]), pending exercises included, so a run
//! that is stopped keeps what it finished; a short summary per submission
//! goes to stdout. A failing submission is a result, not an error: the exit
//! code is 0 when grading completed. When the judge itself fails (no cargo,
//! a missing check suite, a harness missing from a prebuilt index), grading
//! stops with an error (exit 3), and the results file keeps the exercises
//! finished, the others marked `pending` in every format and `complete`
//! false, so that a broken run is not mistaken for a student's zero.

mod gradescope;
mod json;
mod junit;
pub(crate) mod model;
pub(crate) mod output;
pub(crate) mod plan;
pub(crate) mod scratch;
mod shard;
mod summary;

pub(crate) use shard::Shard;

use crate::build::{Index, Prebuilt};
use crate::cli::GradeArgs;
use crate::course::Course;
use crate::exit;
use crate::harness::Spec;
use crate::manifest::Exercise;
use crate::pipeline::{Options, judge_crate};
use crate::report::{ExerciseReport, Stage};
use anyhow::Result;
use model::{SubmissionResult, Verdict};
use output::Sink;
use plan::Submission;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Instant;

/// The role of a submission's harness, which is named `harness-ID-submission`.
pub(crate) const ROLE: &str = "submission";

/// A grading run as it stands.
#[derive(Debug)]
pub(crate) struct Grading {
    /// Every submission of the run, pending ones included.
    pub(crate) submissions: Vec<SubmissionResult>,
    /// The shard of the class, if any.
    pub(crate) shard: Option<Shard>,
    /// Whether every submission has been graded.
    pub(crate) complete: bool,
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

/// Grades the submissions `args` names; writes and summarizes the results.
pub(crate) fn grade(root: Option<&Path>, args: &GradeArgs) -> Result<u8> {
    let course = Course::open(root)?;
    let submissions = plan::submissions(&args.who)?;
    let prebuilt = args
        .options
        .prebuilt
        .as_deref()
        .map(Index::load)
        .transpose()?;
    let sink = Sink::new(args.format, args.out.as_deref(), args.who.class.is_some())?;
    let exercises = &course.manifest.exercises;
    let mut grading = Grading {
        submissions: submissions
            .into_iter()
            .map(|s| SubmissionResult::pending(s, exercises))
            .collect(),
        shard: args.who.shard,
        complete: false,
    };
    announce(&grading);
    sink.save_all(&grading)?;
    let options = Options {
        backend: args.options.backend.name().into(),
        prebuilt: None,
        progress: std::io::stderr().is_terminal(),
        artifacts: None,
        seal_snapshots: true,
    };
    let mut stdout = anstream::stdout();
    for current in 0..grading.submissions.len() {
        grade_submission(
            &course,
            &mut grading,
            current,
            &sink,
            &options,
            prebuilt.as_ref(),
        )?;
        if current > 0 {
            writeln!(stdout)?;
        }
        summary::render(&grading.submissions[current], &mut stdout)?;
    }
    grading.complete = true;
    sink.save_all(&grading)?;
    eprintln!("wrote `{}`", sink.place().display());
    Ok(exit::OK)
}

/// Says on stderr what is about to be graded.
fn announce(grading: &Grading) {
    let count = grading.submissions.len();
    let plural = if count == 1 { "" } else { "s" };
    match grading.shard {
        Some(shard) => eprintln!("grading {count} submission{plural} (shard {shard} of the class)"),
        None => eprintln!("grading {count} submission{plural}"),
    }
}

/// Grades every exercise of submission `current`, saving after each.
fn grade_submission(
    course: &Course,
    grading: &mut Grading,
    current: usize,
    sink: &Sink,
    options: &Options,
    prebuilt: Option<&Index>,
) -> Result<()> {
    let submission = grading.submissions[current].submission.clone();
    if !submission.dir.join("exercises").is_dir() {
        eprintln!(
            "note: `{}` has no `exercises/` folder, so nothing in it is started (a class folder goes with `--class`)",
            submission.dir.display()
        );
    }
    for n in 0..grading.submissions[current].exercises.len() {
        let exercise = grading.submissions[current].exercises[n].exercise.clone();
        let started = Instant::now();
        let verdict = judge_exercise(course, &submission, &exercise, options, prebuilt)?;
        let result = &mut grading.submissions[current].exercises[n];
        result.verdict = verdict;
        result.seconds = started.elapsed().as_secs_f64();
        sink.save(grading, current)?;
    }
    grading.submissions[current].complete = true;
    sink.save(grading, current)
}

/// Builds (or finds prebuilt) and runs one exercise of a submission.
fn judge_exercise(
    course: &Course,
    submission: &Submission,
    exercise: &Exercise,
    options: &Options,
    prebuilt: Option<&Index>,
) -> Result<Verdict> {
    let not_compiled = |log: String| {
        Verdict::Judged(Box::new(ExerciseReport::new(
            exercise,
            Stage::CompileError { log },
        )))
    };
    let spec = match prepare(course, submission, exercise)? {
        Prepared::NotStarted => return Ok(Verdict::NotStarted),
        Prepared::Broken(why) => return Ok(not_compiled(why)),
        Prepared::Ready(spec) => spec,
    };
    let mut options = options.clone();
    if let Some(index) = prebuilt {
        match index.submission_harness(&submission.name, &spec.name)? {
            Prebuilt::CompileError(log) => return Ok(not_compiled(log)),
            Prebuilt::Folder(dir) => options.prebuilt = Some(dir),
        }
    }
    let report = judge_crate(course, exercise, &spec.crate_dir, ROLE, &options)?;
    Ok(Verdict::Judged(Box::new(report)))
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
    let krate = scratch::submission_dir(course, submission)?.join(&folder);
    scratch::copy_crate(&from, &krate, &course.exercise_dir(exercise))?;
    if !from.join("Cargo.toml").is_file() {
        return Ok(Prepared::Broken(format!(
            "the submission's `exercises/{folder}` has no `Cargo.toml`"
        )));
    }
    match Spec::new(course, exercise, &krate, ROLE) {
        Ok(spec) => Ok(Prepared::Ready(Box::new(spec))),
        Err(err) => Ok(Prepared::Broken(format!(
            "the submission's `exercises/{folder}` cannot be built: {err:#}"
        ))),
    }
}
