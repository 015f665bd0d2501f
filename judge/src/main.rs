//! `judge`: builds a learner's exercise with the judge's own checks, runs it
//! on a real GPU or the virtual GPU, and explains the verdict.
//!
//! A learner's failing exercise is a verdict (data), not an error: `main`
//! maps outcomes to the documented exit codes ([`exit`]).
//!
//! The modules stack in layers; each imports only from the layers below it,
//! and no module of a lower layer imports one above:
//!
//! ```text
//!  main ─ cli                       parse, dispatch, map outcomes to exit codes
//!  cmd::{list, run, hint, watch,    the verbs: thin, one per verb; each shows
//!        reset, doctor, verify,     what the layers below return, and none
//!        grade, build, sandbox}     imports another (`sandbox` is the hidden
//!                                   launcher's)
//! ───────────────────────────────────────────────────────────────────────────
//!  gate        grading  prebuilt    what verify, grade and build do, as data;
//!                                   grading and building report through
//!                                   events to a function the verb gives
//!  judging                          the one entry point: judge a crate of an
//!                                   exercise, get its report
//!  submission  cache    seal        a student's crate made ready to build, in
//!                                   a copy of the judge's build cache; the
//!                                   course's checksum
//!  compile     execute  variant     build a harness crate; run a harness
//!  fresh                            binary; make a known-wrong variant;
//!                                   whether a checker is built already
//!  intake      scratch  report      what the judge takes of a student's crate;
//!  reclaim                          scratch copies; the report of one exercise;
//!                                   what a failed build wrote, taken back
//!  sandbox                          the layers around every build and run of
//!                                   student code, and the launcher
//!  course  manifest  progress  role  files  text  starter  book  listing
//!  usage                            the course on disk, its typed manifest, the
//!                                   learner's progress, whose crate, file
//!                                   writes, plain text for results, an
//!                                   exercise's starter code (reset), the
//!                                   book's chapters, the exercise table, the
//!                                   user's mistakes (exit 2)
//! ```
//!
//! The test `judge/tests/cli/layers.rs` reads the imports from the sources
//! and fails on a data module that imports a verb or the command line, on a
//! verb that imports another, and on any import cycle.

mod book;
mod cache;
mod cli;
mod cmd;
mod compile;
mod course;
mod execute;
mod files;
mod fresh;
mod gate;
mod grading;
mod intake;
mod judging;
mod listing;
mod manifest;
mod prebuilt;
mod progress;
mod reclaim;
mod rehearsal;
mod report;
mod role;
mod sandbox;
mod scratch;
mod seal;
mod starter;
mod submission;
mod text;
mod ticker;
mod usage;
mod variant;

use clap::Parser;
use cli::{Cli, Command};
use std::process::ExitCode;

/// The documented exit codes.
pub(crate) mod exit {
    /// Everything passed.
    pub(crate) const OK: u8 = 0;
    /// A check failed, the crate did not compile, or the course is not in order.
    pub(crate) const FAILED: u8 = 1;
    /// Bad usage: clap's own code, and a [`crate::usage::Usage`] error.
    pub(crate) const USAGE: u8 = 2;
    /// The judge or the machine failed.
    pub(crate) const ERROR: u8 = 3;
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(if err.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            });
        }
    };
    let result = match &cli.command {
        Command::List => cmd::list::list(cli.root.as_deref()),
        Command::Run(args) => cmd::run::run(cli.root.as_deref(), args),
        Command::Hint { id, level } => cmd::hint::hint(cli.root.as_deref(), id, *level),
        Command::Verify(args) => cmd::verify::verify(cli.root.as_deref(), args),
        Command::Watch(args) => cmd::watch::watch(cli.root.as_deref(), args),
        Command::Reset { id } => cmd::reset::reset(cli.root.as_deref(), id),
        Command::Doctor { prebuilt } => cmd::doctor::doctor(cli.root.as_deref(), *prebuilt),
        Command::Grade(args) => cmd::grade::grade(cli.root.as_deref(), args),
        Command::Build(args) => cmd::build::build(cli.root.as_deref(), args),
        Command::Sandbox(args) => cmd::sandbox::sandbox(args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            let mut message = format!("error: {err}");
            for cause in err.chain().skip(1) {
                message.push_str(&format!("\n  caused by: {cause}"));
            }
            eprintln!("{message}");
            match usage::is_usage(&err) {
                true => ExitCode::from(exit::USAGE),
                false => ExitCode::from(exit::ERROR),
            }
        }
    }
}
