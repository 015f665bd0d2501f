//! `judge`: builds a learner's exercise with the judge's own checks, runs it
//! on a real GPU or the virtual GPU, and explains the verdict.
//!
//! Each verb is a module with one entry function. A learner's failing
//! exercise is a verdict (data), not an error: `main` maps outcomes to the
//! documented exit codes.

mod build;
mod cli;
mod course;
mod doctor;
mod execute;
mod grade;
mod harness;
mod hint;
mod list;
mod manifest;
mod pipeline;
mod progress;
mod report;
mod reset;
mod run;
mod verify;
mod watch;

use clap::Parser;
use cli::{Cli, Command};
use std::process::ExitCode;

/// The documented exit codes.
pub(crate) mod exit {
    /// Everything passed.
    pub(crate) const OK: u8 = 0;
    /// A check failed, the crate did not compile, or the course is not in order.
    pub(crate) const FAILED: u8 = 1;
    /// Bad usage (clap's own code).
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
        Command::List => list::list(cli.root.as_deref()),
        Command::Run(args) => run::run(cli.root.as_deref(), args),
        Command::Hint { id, level } => hint::hint(cli.root.as_deref(), id, *level),
        Command::Verify(args) => verify::verify(cli.root.as_deref(), args),
        Command::Watch(args) => watch::watch(cli.root.as_deref(), args),
        Command::Reset { id } => reset::reset(cli.root.as_deref(), id),
        Command::Doctor { prebuilt } => doctor::doctor(cli.root.as_deref(), *prebuilt),
        Command::Grade(args) => grade::grade(cli.root.as_deref(), args),
        Command::Build(args) => build::build(cli.root.as_deref(), args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            let mut message = format!("error: {err}");
            for cause in err.chain().skip(1) {
                message.push_str(&format!("\n  caused by: {cause}"));
            }
            eprintln!("{message}");
            ExitCode::from(exit::ERROR)
        }
    }
}
