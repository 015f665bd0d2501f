//! Grading, as data: every exercise of the course, for one submission or a
//! class of them, judged with the judge's own checks.
//!
//! For each submission and each exercise of the manifest, in order: the
//! regular `.rs` files of the student's `SUBMISSION/exercises/ID-SLUG/src/`
//! are taken into the submission's scratch folder with the course's own
//! manifest ([`crate::intake`]), then built with the judge's check suite in
//! the submission's own target folder (a copy of the judge's cache,
//! [`crate::cache`]) and run under the exercise's time limit, both in the
//! sandbox ([`crate::sandbox`]), like `judge run` (with a prebuilt index,
//! the harnesses `judge build` made are run instead). The checks' generated
//! workloads take the run's seed, chosen at grading time. After each
//! submission the course must be as it was ([`crate::seal`]). A missing exercise
//! folder is a result, `not_started`, worth no points. The results are
//! rewritten after each exercise ([`output`]), pending exercises included,
//! so a run that is stopped keeps what it finished. A failing submission is
//! a result, not an error. When the judge itself fails (no cargo, a missing
//! check suite, a harness missing from a prebuilt index), grading stops with
//! an error, and the results file keeps the exercises finished, the others
//! marked `pending` in every format and `complete` false, so that a broken
//! run is not mistaken for a student's zero. A student's own results file
//! (Gradescope's, one per submission of a class) is named by the judge, and
//! one that cannot be written is that student's error: the class goes on.
//!
//! What happens is reported through [`GradeEvent`]s to a function the
//! caller gives; `judge grade` prints them.

pub(crate) mod budget;
pub(crate) mod class;
mod gradescope;
mod json;
mod junit;
pub(crate) mod merge;
pub(crate) mod model;
pub(crate) mod output;
pub(crate) mod summary;

use crate::cache::{self, Cache};
use crate::compile::Kind;
use crate::course::Course;
use crate::intake::GradedFile;
use crate::judging::{Options, judge_spec};
use crate::manifest::Exercise;
use crate::prebuilt::{Index, Prebuilt};
use crate::report::{Decided, ExerciseReport, Stage};
use crate::sandbox::Layers;
use crate::seal::Seal;
use crate::submission::{Prepared, Shard, Submission, prepare};
use anyhow::Result;
use clap::ValueEnum;
use model::{SubmissionResult, Verdict};
use output::Sink;
use std::path::Path;
use std::time::{Duration, Instant};

/// How `grade` writes its results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// The judge's own model: every check's outcome, points and output (default file `grade.json`).
    #[default]
    Json,
    /// JUnit XML: a test suite per exercise, a test case per check (default file `grade.xml`).
    Junit,
    /// Gradescope's `results.json` (default `results.json`; with `--class`, a
    /// folder, default `results/`, with one file per submission, named by the judge).
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
    /// The sandbox's layers in force (or that it was off).
    pub(crate) sandbox: Layers,
    /// The seed the checks' generated workloads took.
    pub(crate) seed: u64,
    /// Where the verdicts were decided (outside, or `--in-process`).
    pub(crate) decided: Decided,
}

/// How to grade: where the results go, how to judge each crate, and what
/// else to keep.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan<'a> {
    /// Where the results go.
    pub(crate) sink: &'a Sink,
    /// How to judge each crate; its `seed` is the run's.
    pub(crate) options: &'a Options,
    /// Harnesses built by `judge build`, to run instead of building.
    pub(crate) prebuilt: Option<&'a Index>,
    /// A folder that keeps the exact sources graded (`--keep`).
    pub(crate) keep: Option<&'a Path>,
    /// The wall time one submission's builds and checks may take in all
    /// ([`budget`]).
    pub(crate) budget: Budget,
}

/// How a submission's budget is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Budget {
    /// Given by the instructor.
    Given(Duration),
    /// [`budget::MULTIPLE`] times what the course's solutions take, measured
    /// at the start of the run.
    Measured,
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
    /// The budget of every submission, and what the course's solutions
    /// took when it was measured from them.
    Budget {
        /// The budget.
        budget: Duration,
        /// What the solutions took, when measured.
        reference: Option<Duration>,
    },
    /// A submission folder has no `exercises/` folder.
    NoExercises(&'a Submission),
    /// A submission is graded: its result.
    Graded(&'a SubmissionResult),
    /// Every submission is graded and the results are at this place.
    Finished(Vec<std::path::PathBuf>),
}

/// Grades `submissions` as `plan` says, reporting through `events`; stops
/// with an error when a submission changed the course.
pub(crate) fn grade(
    course: &Course,
    submissions: Vec<Submission>,
    shard: Option<Shard>,
    plan: &Plan<'_>,
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
        sandbox: plan.options.sandbox.layers().clone(),
        seed: plan.options.seed.unwrap_or_default(),
        decided: plan.options.decided(),
    };
    let seal = Seal::of(course)?;
    let cache = match plan.prebuilt {
        None if !grading.submissions.is_empty() => cache::for_course(course)?,
        _ => None,
    };
    events(GradeEvent::Started {
        count: grading.submissions.len(),
        shard,
    });
    plan.sink.save_all(&mut grading)?;
    let budget = match plan.budget {
        Budget::Given(budget) => {
            events(GradeEvent::Budget {
                budget,
                reference: None,
            });
            budget
        }
        Budget::Measured => {
            let measured = budget::measure(course, plan, cache.as_ref())?;
            events(GradeEvent::Budget {
                budget: measured.budget,
                reference: Some(measured.reference),
            });
            measured.budget
        }
    };
    plan.sink.save_all(&mut grading)?;
    for current in 0..grading.submissions.len() {
        let submission = &grading.submissions[current].submission;
        if !submission.dir.join("exercises").is_dir() {
            events(GradeEvent::NoExercises(submission));
        }
        let graded = grade_submission(
            course,
            &mut grading,
            current,
            (plan, budget),
            cache.as_ref(),
        );
        // Its scratch folder goes now, graded or not: a class takes the
        // disk of one submission at a time.
        let submission = &grading.submissions[current].submission;
        submission.remove_scratch(course)?;
        graded?;
        seal.check(course, &grading.submissions[current].submission.name)?;
        plan.sink.save_class(&grading)?;
        events(GradeEvent::Graded(&grading.submissions[current]));
    }
    grading.complete = true;
    plan.sink.save_all(&mut grading)?;
    plan.sink.save_class(&grading)?;
    events(GradeEvent::Finished(plan.sink.written()));
    Ok(grading)
}

/// Grades every exercise of submission `current`, saving after each,
/// within its budget: once the budget is used, the exercises left are over
/// budget, and each build and run is cut to what is left of it.
fn grade_submission(
    course: &Course,
    grading: &mut Grading,
    current: usize,
    (plan, budget): (&Plan<'_>, Duration),
    cache: Option<&Cache>,
) -> Result<()> {
    let submission = grading.submissions[current].submission.clone();
    grading.submissions[current].budget_s = Some(budget.as_secs_f64());
    grading.submissions[current].unknown_folders = unknown_folders(course, &submission);
    let mut used = Duration::ZERO;
    for n in 0..grading.submissions[current].exercises.len() {
        let exercise = grading.submissions[current].exercises[n].exercise.clone();
        let started = Instant::now();
        let left = budget.saturating_sub(used);
        let (verdict, files) = match left.is_zero() {
            true => {
                let over = Verdict::OverBudget {
                    budget_s: budget.as_secs_f64(),
                    used_s: used.as_secs_f64(),
                };
                (over, Vec::new())
            }
            false => {
                let deadline = Some(started + left);
                judge_exercise(course, &submission, &exercise, plan, cache, deadline)?
            }
        };
        used += started.elapsed();
        let result = &mut grading.submissions[current].exercises[n];
        (result.verdict, result.files) = (verdict, files);
        result.seconds = started.elapsed().as_secs_f64();
        plan.sink.save(grading, current)?;
    }
    grading.submissions[current].complete = true;
    plan.sink.save(grading, current)
}

/// The folders of `submission`'s `exercises/` that name no exercise of the
/// course, each with the exercise it may have meant (the one with its id,
/// or with its slug).
fn unknown_folders(course: &Course, submission: &Submission) -> Vec<(String, Option<String>)> {
    let Ok(entries) = std::fs::read_dir(submission.dir.join("exercises")) else {
        return Vec::new();
    };
    let exercises = &course.manifest.exercises;
    let mut unknown: Vec<(String, Option<String>)> = entries
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.') && !exercises.iter().any(|x| x.dir_name() == *name))
        .map(|name| {
            let meant = exercises
                .iter()
                .find(|x| name.starts_with(&x.id.to_string()) || name.ends_with(&x.slug))
                .map(Exercise::dir_name);
            (name, meant)
        })
        .collect();
    unknown.sort();
    unknown
}

/// Builds (or finds prebuilt) and runs one exercise of a submission, both
/// over by `deadline`; its verdict, and the files graded.
fn judge_exercise(
    course: &Course,
    submission: &Submission,
    exercise: &Exercise,
    plan: &Plan<'_>,
    cache: Option<&Cache>,
    deadline: Option<Instant>,
) -> Result<(Verdict, Vec<GradedFile>)> {
    let not_compiled = |log: String| {
        Verdict::Judged(Box::new(ExerciseReport::new(
            exercise,
            Stage::CompileError { log },
        )))
    };
    let sandbox = &plan.options.sandbox;
    let (spec, files) = match prepare(course, submission, exercise, cache, sandbox)? {
        Prepared::NotStarted => return Ok((Verdict::NotStarted, Vec::new())),
        Prepared::Broken(why) => return Ok((not_compiled(why), Vec::new())),
        Prepared::Ready(spec, files) => (spec, files),
    };
    if let Some(keep) = plan.keep {
        let kept = keep.join(&submission.name).join(exercise.dir_name());
        crate::scratch::copy_crate(&spec.crate_dir, &kept, &spec.crate_dir)?;
    }
    let prebuilt_dir = match plan.prebuilt {
        None => None,
        Some(index) => {
            // The agent when the judge decides outside the student's
            // process, else the harness.
            let name = match plan.options.decided() {
                Decided::OutsideTheLearnersProcess => {
                    spec.as_kind(course, exercise, Kind::Agent)?.name
                }
                Decided::InTheLearnersProcess => spec.name.clone(),
            };
            match index.submission_harness(&submission.name, &name)? {
                Prebuilt::CompileError(log) => return Ok((not_compiled(log), files)),
                Prebuilt::Folder(dir) => Some(dir),
            }
        }
    };
    let options = Options {
        prebuilt: prebuilt_dir,
        checkers: plan.prebuilt.map(|index| index.dir().to_path_buf()),
        deadline,
        ..plan.options.clone()
    };
    let report = judge_spec(course, exercise, &spec, &options)?;
    Ok((Verdict::Judged(Box::new(report)), files))
}
