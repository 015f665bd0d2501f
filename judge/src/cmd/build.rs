//! `judge build --out DIR`: every checker and agent of the course (and of
//! the submissions named; with `--in-process`, every harness too) built and
//! not run, for `--prebuilt DIR` on a GPU
//! machine without Rust. What is built and how the index reads:
//! [`crate::prebuilt`].

use crate::cli::BuildArgs;
use crate::course::Course;
use crate::exit;
use crate::prebuilt::{self, BuildEvent};
use crate::sandbox::Sandbox;
use crate::submission;
use crate::ticker::Shown;
use anyhow::Result;
use std::path::Path;

/// Builds the harnesses; says each on stderr and the counts on stdout.
pub(crate) fn build(root: Option<&Path>, args: &BuildArgs) -> Result<u8> {
    let course = Course::open(root)?;
    let submissions = submission::submissions(&args.who.whose())?;
    let progress = Shown::on_stderr();
    let sandbox = Sandbox::new(args.sandbox.config());
    let counts = prebuilt::build_all(
        &course,
        &submissions,
        &args.out,
        (progress, args.in_process),
        &sandbox,
        &mut say,
    )?;
    println!(
        "built {} harnesses into `{}`; {} did not compile (see `index.json` there)",
        counts.built,
        args.out.display(),
        counts.failed
    );
    Ok(exit::OK)
}

/// One line on stderr per harness.
fn say(event: BuildEvent<'_>) {
    match event {
        BuildEvent::Built(relative) => eprintln!("built `{relative}`"),
        BuildEvent::CompileError(relative) => {
            eprintln!("`{relative}` does not compile (its messages are in the index)")
        }
        BuildEvent::Skipped { name, why } => eprintln!("skipped `{name}`: {why}"),
    }
}
