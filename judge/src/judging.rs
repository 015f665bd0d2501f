//! Build, run, report: one crate of one exercise against the judge's checks.
//!
//! [`judge_crate`] is the one entry point that judges a target and returns
//! its report; `run`, `watch`, `verify` and `grade` all go through it.

use crate::compile::{Built, Spec, build};
use crate::course::Course;
use crate::execute::{RunSpec, execute};
use crate::manifest::Exercise;
use crate::prebuilt;
use crate::report::{CheckReport, ExerciseReport, Stage};
use crate::role::Role;
use crate::sandbox::Sandbox;
use anyhow::Result;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How to judge a crate.
#[derive(Clone, Debug, Default)]
pub(crate) struct Options {
    /// The backend the checks open their devices on.
    pub(crate) backend: gpu::Backend,
    /// Prebuilt harnesses (from `judge build`) instead of building.
    pub(crate) prebuilt: Option<PathBuf>,
    /// Show a spinner while building.
    pub(crate) progress: bool,
    /// Where checks may write timelines and traces.
    pub(crate) artifacts: Option<PathBuf>,
    /// Whether the harness reads a read-only copy of the suite's snapshots
    /// (grade mode).
    pub(crate) seal_snapshots: bool,
    /// The sandbox builds and runs happen in.
    pub(crate) sandbox: Sandbox,
    /// The seed of checks that generate their inputs: chosen at grading
    /// time in grade mode, `None` (the course's fixed seed) otherwise.
    pub(crate) seed: Option<u64>,
}

/// Builds `crate_dir` (a crate of `exercise`, in the given `role`) with the
/// judge's checks, runs them and reports.
pub(crate) fn judge_crate(
    course: &Course,
    exercise: &Exercise,
    crate_dir: &Path,
    role: &Role,
    options: &Options,
) -> Result<ExerciseReport> {
    let spec = Spec::new(course, exercise, crate_dir, role)?;
    judge_spec(course, exercise, &spec, options)
}

/// Builds the harness of `spec` (a crate of `exercise`), runs it and reports.
pub(crate) fn judge_spec(
    course: &Course,
    exercise: &Exercise,
    spec: &Spec,
    options: &Options,
) -> Result<ExerciseReport> {
    let binary = match &options.prebuilt {
        Some(dir) => Built::Binary(prebuilt::binary(dir, &spec.name)?),
        None => build(course, spec, &options.sandbox, options.progress)?,
    };
    let binary = match binary {
        Built::Binary(path) => path,
        Built::CompileError(log) => {
            return Ok(ExerciseReport::new(exercise, Stage::CompileError { log }));
        }
    };
    let run = execute(&RunSpec {
        binary,
        backend: options.backend,
        timeout: Duration::from_secs(exercise.timeout_s),
        artifacts: options.artifacts.clone(),
        suite: spec.checks.parent().unwrap_or(&spec.checks).to_path_buf(),
        seal_snapshots: options.seal_snapshots,
        scratch: course.scratch("runs"),
        sandbox: options.sandbox.clone(),
        seed: options.seed,
    })?;
    let stage = match run.failure {
        Some(reason) => Stage::HarnessFailure { reason },
        None => Stage::Checked {
            checks: run
                .checks
                .iter()
                .map(|info| {
                    let (outcome, seconds) = run
                        .outcomes
                        .get(&info.name)
                        .cloned()
                        .unwrap_or((judge_harness::Outcome::NotRun, 0.0));
                    CheckReport {
                        info: info.clone(),
                        outcome,
                        seconds,
                    }
                })
                .collect(),
        },
    };
    let mut report = ExerciseReport::new(exercise, stage);
    report.backend = run.backend;
    report.output = run.output;
    report.forged_lines = run.forged;
    report.artifacts = run.artifacts;
    Ok(report)
}

/// Judges the learner's crate of `exercise` (or, with `solution`, the
/// reference solution), as `judge run` and `judge watch` do.
pub(crate) fn judge_learner(
    course: &Course,
    exercise: &Exercise,
    solution: bool,
    options: &Options,
) -> Result<ExerciseReport> {
    let (dir, role) = match solution {
        true => (course.solution_dir(exercise), Role::Solution),
        false => (course.exercise_dir(exercise), Role::Exercise),
    };
    let report = judge_crate(course, exercise, &dir, &role, options)?;
    if !solution {
        crate::progress::record(course, exercise.id, report.passed())?;
    }
    Ok(report)
}
