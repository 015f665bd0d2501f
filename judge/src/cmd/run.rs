//! `judge run ID`: one exercise, the learner's crate or the solution.

use crate::book::Book;
use crate::cli::RunArgs;
use crate::course::Course;
use crate::exit;
use crate::judging::{Options, judge_learner};
use crate::report::render;
use crate::sandbox::Sandbox;
use crate::ticker::Shown;
use anyhow::Result;
use judge_harness::Artifact;
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
        progress: Shown::on_stderr(),
        // Only a timeline or a trace asked for is drawn: on a real GPU that
        // times every operation with events (see `Ctx::device`).
        artifacts: (args.timeline.is_some() || args.trace.is_some()).then(|| artifacts.clone()),
        seal_snapshots: false,
        sandbox: Sandbox::new(args.options.sandbox.config()),
        seed: None,
        checkers: None,
        in_process: args.options.in_process,
        deadline: None,
    };
    let report = judge_learner(&course, &exercise, args.solution, &options)?;
    render(&report, &Book::of(&course.root), &mut anstream::stdout())?;
    let timeline = first_timeline(&report.artifacts, &artifacts);
    copy_artifact(timeline.map(|(svg, _)| svg), args.timeline.as_deref())?;
    copy_artifact(timeline.map(|(_, json)| json), args.trace.as_deref())?;
    Ok(if report.passed() {
        exit::OK
    } else {
        exit::FAILED
    })
}

/// The drawing and the trace of the first timeline a check saved
/// (`Ctx::save_timeline`), if it lies in the run's artifacts folder `dir`.
fn first_timeline<'a>(saved: &'a [Artifact], dir: &Path) -> Option<(&'a Path, &'a Path)> {
    saved.iter().find_map(|artifact| match artifact {
        Artifact::Timeline { svg, json } if svg.starts_with(dir) && json.starts_with(dir) => {
            Some((svg.as_path(), json.as_path()))
        }
        Artifact::Timeline { .. } => None,
    })
}

/// Copies a file the checks saved (`from`) to where the learner asked.
fn copy_artifact(from: Option<&Path>, to: Option<&Path>) -> Result<()> {
    let Some(to) = to else { return Ok(()) };
    let Some(from) = from.filter(|f| f.is_file()) else {
        eprintln!(
            "note: the checks of this exercise drew no timeline, so `{}` was not written",
            to.display()
        );
        return Ok(());
    };
    fs_err::copy(from, to)?;
    eprintln!("wrote `{}`", to.display());
    Ok(())
}
