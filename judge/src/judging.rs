//! Build, run, report: one crate of one exercise against the judge's checks.
//!
//! [`judge_crate`] is the one entry point that judges a target and returns
//! its report; `run`, `watch`, `verify` and `grade` all go through it.

use crate::compile::{Built, Kind, Spec, build};
use crate::course::Course;
use crate::execute::{RunSpec, execute};
use crate::manifest::Exercise;
use crate::prebuilt;
use crate::report::{CheckReport, Decided, ExerciseReport, Stage};
use crate::role::Role;
use crate::sandbox::Sandbox;
use anyhow::Result;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How to judge a crate.
#[derive(Clone, Debug, Default)]
pub(crate) struct Options {
    /// The backend the checks open their devices on.
    pub(crate) backend: gpu::Backend,
    /// Prebuilt harnesses (from `judge build`) instead of building.
    pub(crate) prebuilt: Option<PathBuf>,
    /// Where prebuilt checkers are, when not in `prebuilt` (a submission's
    /// folder of a build holds its agents; the course's checkers are in the
    /// folder above).
    pub(crate) checkers: Option<PathBuf>,
    /// Show a spinner while building.
    pub(crate) progress: crate::ticker::Shown,
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
    /// Decide in the learner's process even where the judge could decide
    /// outside it (`--in-process`: to compare the two, or to audit).
    pub(crate) in_process: bool,
    /// When the builds and the checks must be over (what is left of a
    /// submission's budget): each build and run is cut to it.
    pub(crate) deadline: Option<Instant>,
}

impl Options {
    /// What is left until the deadline, at most `limit`.
    pub(crate) fn within(&self, limit: Duration) -> Duration {
        match self.deadline {
            Some(deadline) => limit.min(deadline.saturating_duration_since(Instant::now())),
            None => limit,
        }
    }

    /// Where the verdicts are decided: outside the learner's process on
    /// every backend (the checker owns the device, the virtual GPU's or the
    /// real one); in it only with `--in-process`.
    pub(crate) fn decided(&self) -> Decided {
        match self.in_process {
            false => Decided::OutsideTheLearnersProcess,
            true => Decided::InTheLearnersProcess,
        }
    }
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
    let spec = Spec::new(course, exercise, crate_dir, role, Kind::Harness)?;
    judge_spec(course, exercise, &spec, options)
}

/// The binaries a run needs, built or found prebuilt.
enum Binaries {
    /// A harness that links the learner's crate.
    Harness(PathBuf),
    /// A checker and the agent it calls.
    Split { checker: PathBuf, agent: PathBuf },
}

/// Builds (or finds in `options.prebuilt`) what `spec` needs to be judged
/// as `decided` says: its harness, or the exercise's checker and the
/// crate's agent; or the compiler's messages.
fn binaries(
    course: &Course,
    exercise: &Exercise,
    spec: &Spec,
    options: &Options,
    decided: Decided,
) -> Result<Result<Binaries, String>> {
    let get = |spec: &Spec, prebuilt: Option<&Path>| -> Result<Built> {
        match prebuilt {
            Some(dir) => Ok(Built::Binary(prebuilt::binary(dir, &spec.name)?)),
            None => {
                let limit = options.within(options.sandbox.config().build_timeout);
                build(course, spec, &options.sandbox, options.progress, limit)
            }
        }
    };
    if decided == Decided::InTheLearnersProcess {
        return Ok(match get(spec, options.prebuilt.as_deref())? {
            Built::Binary(path) => Ok(Binaries::Harness(path)),
            Built::CompileError(log) => Err(log),
        });
    }
    let agent = match get(
        &spec.as_kind(course, exercise, Kind::Agent)?,
        options.prebuilt.as_deref(),
    )? {
        Built::Binary(path) => path,
        Built::CompileError(log) => return Ok(Err(log)),
    };
    // The checker is the course's: prebuilt beside the course's binaries
    // (a submission's folder is below them), else built once for all.
    let checker_dir = options.checkers.as_deref().or(options.prebuilt.as_deref());
    let checker = match get(&Spec::checker(course, exercise)?, checker_dir)? {
        Built::Binary(path) => path,
        Built::CompileError(log) => anyhow::bail!(
            "the judge's checker of exercise {} does not compile:\n{log}",
            exercise.id
        ),
    };
    Ok(Ok(Binaries::Split { checker, agent }))
}

/// Builds the harness of `spec` (a crate of `exercise`), or its agent and
/// the exercise's checker, runs it and reports.
pub(crate) fn judge_spec(
    course: &Course,
    exercise: &Exercise,
    spec: &Spec,
    options: &Options,
) -> Result<ExerciseReport> {
    let decided = options.decided();
    let (binary, agent) = match binaries(course, exercise, spec, options, decided)? {
        Ok(Binaries::Harness(binary)) => (binary, None),
        Ok(Binaries::Split { checker, agent }) => (checker, Some(agent)),
        Err(log) => {
            let mut report = ExerciseReport::new(exercise, Stage::CompileError { log });
            report.decided = decided;
            return Ok(report);
        }
    };
    let run = execute(&RunSpec {
        binary,
        agent,
        backend: options.backend,
        timeout: options.within(Duration::from_secs(exercise.timeout_s)),
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
    report.decided = decided;
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
    if !solution && !dir.join("Cargo.toml").is_file() {
        let folder = format!("exercises/{}", exercise.dir_name());
        return Err(crate::usage::Usage(format!(
            "`{folder}` has no `Cargo.toml`, so there is no crate to check; `judge reset {}` puts the starter back (backing up what is in `{folder}` first)",
            exercise.id
        ))
        .into());
    }
    let report = judge_crate(course, exercise, &dir, &role, options)?;
    if !solution {
        crate::progress::record(course, exercise.id, report.passed())?;
    }
    Ok(report)
}
