//! Grading, as data: every exercise of the course, for one submission or a
//! class of them, judged with the judge's own checks.
//!
//! For each submission and each exercise of the manifest, in order: the
//! student's crate (`SUBMISSION/exercises/ID-SLUG/`) is copied, its
//! `Cargo.toml` and `src/` only, into the scratch folder
//! ([`crate::scratch`]), then built with the judge's check suite and run
//! under the exercise's time limit, like `judge run` (with a prebuilt index,
//! the harnesses `judge build` made are run instead). A missing exercise
//! folder is a result, `not_started`, worth no points. The results are
//! rewritten after each exercise ([`output`]), pending exercises included,
//! so a run that is stopped keeps what it finished. A failing submission is
//! a result, not an error. When the judge itself fails (no cargo, a missing
//! check suite, a harness missing from a prebuilt index), grading stops with
//! an error, and the results file keeps the exercises finished, the others
//! marked `pending` in every format and `complete` false, so that a broken
//! run is not mistaken for a student's zero.
//!
//! What happens is reported through [`GradeEvent`]s to a function the
//! caller gives; `judge grade` prints them.

mod gradescope;
mod json;
mod junit;
pub(crate) mod model;
pub(crate) mod output;
pub(crate) mod summary;

use crate::course::Course;
use crate::judging::{Options, judge_crate};
use crate::manifest::Exercise;
use crate::prebuilt::{Index, Prebuilt};
use crate::report::{ExerciseReport, Stage};
use crate::role::Role;
use crate::submission::{Prepared, Shard, Submission, prepare};
use anyhow::Result;
use clap::ValueEnum;
use model::{SubmissionResult, Verdict};
use output::Sink;
use std::path::Path;
use std::time::Instant;

/// How `grade` writes its results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// The judge's own model: every check's outcome, points and output (default file `grade.json`).
    #[default]
    Json,
    /// JUnit XML: a test suite per exercise, a test case per check (default file `grade.xml`).
    Junit,
    /// Gradescope's `results.json` (default `results.json`; with `--class`, a
    /// folder, default `results/`, with one `NAME.json` per submission).
    Gradescope,
}

/// A grading run as it stands.
#[derive(Debug)]
pub(crate) struct Grading {
    /// Every submission of the run, pending ones included.
    pub(crate) submissions: Vec<SubmissionResult>,
    /// The shard of the class, if any.
    pub(crate) shard: Option<Shard>,
    /// Whether every submission has been graded.
    pub(crate) complete: bool,
    /// The seed the checks got (chosen at grading time), if any.
    pub(crate) seed: Option<u64>,
}

/// What grading reports as it goes.
#[derive(Debug)]
pub(crate) enum GradeEvent<'a> {
    /// Grading starts: how many submissions, of which shard.
    Started {
        /// The number of submissions.
        count: usize,
        /// The shard of the class, if any.
        shard: Option<Shard>,
    },
    /// A submission folder has no `exercises/` folder.
    NoExercises(&'a Submission),
    /// A submission is graded: its result.
    Graded(&'a SubmissionResult),
    /// Every submission is graded and the results are at this place.
    Finished(&'a Path),
}

/// Grades `submissions` into `sink`, reporting through `events`.
pub(crate) fn grade(
    course: &Course,
    submissions: Vec<Submission>,
    shard: Option<Shard>,
    sink: &Sink,
    options: &Options,
    prebuilt: Option<&Index>,
    events: &mut dyn FnMut(GradeEvent<'_>),
) -> Result<Grading> {
    let exercises = &course.manifest.exercises;
    let mut grading = Grading {
        submissions: submissions
            .into_iter()
            .map(|s| SubmissionResult::pending(s, exercises))
            .collect(),
        shard,
        complete: false,
        seed: options.seed,
    };
    events(GradeEvent::Started {
        count: grading.submissions.len(),
        shard,
    });
    sink.save_all(&grading)?;
    for current in 0..grading.submissions.len() {
        let submission = &grading.submissions[current].submission;
        if !submission.dir.join("exercises").is_dir() {
            events(GradeEvent::NoExercises(submission));
        }
        grade_submission(course, &mut grading, current, sink, options, prebuilt)?;
        events(GradeEvent::Graded(&grading.submissions[current]));
    }
    grading.complete = true;
    sink.save_all(&grading)?;
    events(GradeEvent::Finished(sink.place()));
    Ok(grading)
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
    let prebuilt_dir = match prebuilt {
        None => None,
        Some(index) => match index.submission_harness(&submission.name, &spec.name)? {
            Prebuilt::CompileError(log) => return Ok(not_compiled(log)),
            Prebuilt::Folder(dir) => Some(dir),
        },
    };
    let options = Options {
        prebuilt: prebuilt_dir,
        ..options.clone()
    };
    let report = judge_crate(
        course,
        exercise,
        &spec.crate_dir,
        &Role::Submission,
        &options,
    )?;
    Ok(Verdict::Judged(Box::new(report)))
}
