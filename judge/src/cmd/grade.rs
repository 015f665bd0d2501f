//! `judge grade`: instructor mode. Grades the submissions named into the
//! format asked for ([`crate::grading`] says how), a short summary per
//! submission on stdout. Exit 0 when grading completed, whatever the
//! students' results.

use crate::cli::GradeArgs;
use crate::course::Course;
use crate::exit;
use crate::grading::output::Sink;
use crate::grading::{self, GradeEvent, summary};
use crate::judging::Options;
use crate::prebuilt::Index;
use crate::submission;
use anyhow::Result;
use std::io::{IsTerminal, Write};
use std::path::Path;

/// Grades the submissions `args` names; writes and summarizes the results.
pub(crate) fn grade(root: Option<&Path>, args: &GradeArgs) -> Result<u8> {
    let course = Course::open(root)?;
    let whose = args.who.whose();
    let submissions = submission::submissions(&whose)?;
    let prebuilt = args
        .options
        .prebuilt
        .as_deref()
        .map(Index::load)
        .transpose()?;
    let sink = Sink::new(args.format, args.out.as_deref(), args.who.class.is_some())?;
    let options = Options {
        backend: args.options.backend.into(),
        prebuilt: None,
        progress: std::io::stderr().is_terminal(),
        artifacts: None,
        seal_snapshots: true,
        // Chosen now, so that no table of answers made with the course's
        // fixed seed passes; the results record it.
        seed: Some(fastrand::u64(..)),
    };
    let mut stdout = anstream::stdout();
    let mut shown = 0;
    let mut failed_to_print = None;
    grading::grade(
        &course,
        submissions,
        args.who.shard,
        &sink,
        &options,
        prebuilt.as_ref(),
        &mut |event| {
            if let Err(err) = show(event, &mut stdout, &mut shown) {
                failed_to_print.get_or_insert(err);
            }
        },
    )?;
    match failed_to_print {
        Some(err) => Err(err.into()),
        None => Ok(exit::OK),
    }
}

/// Shows one event: notes on stderr, each submission's summary on stdout.
fn show(event: GradeEvent<'_>, stdout: &mut dyn Write, shown: &mut usize) -> std::io::Result<()> {
    match event {
        GradeEvent::Started { count, shard } => {
            let plural = if count == 1 { "" } else { "s" };
            match shard {
                Some(shard) => {
                    eprintln!("grading {count} submission{plural} (shard {shard} of the class)")
                }
                None => eprintln!("grading {count} submission{plural}"),
            }
        }
        GradeEvent::NoExercises(submission) => eprintln!(
            "note: `{}` has no `exercises/` folder, so nothing in it is started (a class folder goes with `--class`)",
            submission.dir.display()
        ),
        GradeEvent::Graded(result) => {
            if *shown > 0 {
                writeln!(stdout)?;
            }
            *shown += 1;
            summary::render(result, stdout)?;
        }
        GradeEvent::Finished(place) => eprintln!("wrote `{}`", place.display()),
    }
    Ok(())
}
