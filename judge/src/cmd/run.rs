//! `judge run ID`: one exercise, the learner's crate or the solution.

use crate::cli::RunArgs;
use crate::course::Course;
use crate::exit;
use crate::judging::{Options, judge_learner};
use crate::report::render;
use crate::sandbox::Sandbox;
use anyhow::{Context, Result};
use std::io::IsTerminal;
use std::path::Path;

/// Runs the exercise and prints the report; the exit code says whether it passed.
pub(crate) fn run(root: Option<&Path>, args: &RunArgs) -> Result<u8> {
    let course = Course::open(root)?;
    let exercise = course.manifest.get(&args.id)?.clone();
    let artifacts = course.scratch("artifacts").join(exercise.dir_name());
    let _ = std::fs::remove_dir_all(&artifacts);
    let options = Options {
        backend: args.options.backend.into(),
        prebuilt: args.options.prebuilt.clone(),
        progress: std::io::stderr().is_terminal(),
        // Only a timeline or a trace asked for is drawn: on a real GPU that
        // times every operation with events (see `Ctx::device`).
        artifacts: (args.timeline.is_some() || args.trace.is_some()).then(|| artifacts.clone()),
        sandbox: Sandbox::new(args.options.sandbox.config()),
        seed: None,
    };
    let report = judge_learner(&course, &exercise, args.solution, &options)?;
    render(&report, &mut anstream::stdout())?;
    copy_artifact(&artifacts, "timeline.svg", args.timeline.as_deref())?;
    copy_artifact(&artifacts, "timeline.json", args.trace.as_deref())?;
    Ok(if report.passed() {
        exit::OK
    } else {
        exit::FAILED
    })
}

/// Copies an artifact the checks wrote to where the learner asked.
fn copy_artifact(dir: &Path, name: &str, to: Option<&Path>) -> Result<()> {
    let Some(to) = to else { return Ok(()) };
    let from = dir.join(name);
    if !from.is_file() {
        eprintln!(
            "note: the checks of this exercise drew no timeline, so `{}` was not written",
            to.display()
        );
        return Ok(());
    }
    std::fs::copy(&from, to).with_context(|| format!("cannot write `{}`", to.display()))?;
    eprintln!("wrote `{}`", to.display());
    Ok(())
}
