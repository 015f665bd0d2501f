//! The command line: types only; `main` dispatches them to the verbs in
//! [`crate::cmd`].
//!
//! Over 400 lines with its parsing tests (the types are about 370): one
//! file holds the whole command line, as `--help` reads it.

use crate::grading::Format as GradeFormat;
use crate::sandbox::launcher::Stage;
use crate::sandbox::{Config as SandboxConfig, GIB, Limits, User};
use crate::submission::{Shard, Whose};
use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// The workbook's judge: builds an exercise with the judge's own checks, runs
/// it on your GPU or on the virtual GPU, and explains what it found.
///
/// Exit codes: 0 success; 1 a check failed or the crate did not compile
/// (for `verify`: the course is not in order; for `doctor`: the judge cannot
/// build or run here); 2 bad usage; 3 the judge or
/// the machine failed (no cargo, an unreadable file). `grade` exits 0 when it
/// graded, whatever the students' results, and `build` exits 0 when it built
/// what compiles (compile errors are recorded in its index); both exit 2 on
/// bad usage (a bad `--shard`, an unknown `--format`) and 3 when they cannot
/// go on (no such submission folder, no cargo, a results file that cannot be
/// written or, for `grade --merge`, merged); `grade`'s results file then
/// keeps the exercises it finished.
#[derive(Debug, Parser)]
#[command(name = "judge", version)]
pub(crate) struct Cli {
    /// The course folder (holding `exercises/info.toml`); default: found from here.
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) root: Option<PathBuf>,
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The verbs.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Every exercise with its status, and your progress.
    List,
    /// Build an exercise with the judge's checks and run them.
    Run(RunArgs),
    /// Show a hint for an exercise, from a nudge (level 1) to nearly the answer.
    Hint {
        /// The exercise id (`101`).
        id: String,
        /// How much to give away (1 = least); the hints of the lower levels are shown first, so that the new one reads in context.
        #[arg(long, default_value_t = 1)]
        level: usize,
    },
    /// The author gate: the manifest and the folders agree, every solution
    /// passes, every untouched starter fails, every known-wrong variant is
    /// caught with the right diagnosis.
    Verify(VerifyArgs),
    /// Run an exercise again each time you save one of its files, with keys
    /// for what you need meanwhile; start with the first one not passed yet.
    ///
    /// Keys (on a terminal they act at once; from a pipe, each followed by
    /// Enter): `h` a hint (one level more each time), `l` the exercise
    /// table, `x` reset the exercise to its starter (after a `y`; your crate
    /// is backed up first), `n` the next exercise in the book's order not
    /// passed yet, `r` (or Enter) run it again now, `q` quit.
    Watch(WatchArgs),
    /// Put back the starter code of an exercise, keeping a backup of your crate.
    ///
    /// The starter is the exercise's folder as the course ships it
    /// (`exercises/starters.toml` names its files; git has them), whatever
    /// you committed since. Your crate (every file but `target/`) is first
    /// copied to `.judge-backups/ID-SLUG-TIME/`; files you added are then
    /// removed from the crate (the backup keeps them). Git's index and
    /// history are left as they are.
    Reset {
        /// The exercise id (`101`).
        id: String,
    },
    /// Check this machine: the Rust toolchain, the course, the CUDA driver,
    /// NVRTC, the GPU, and which backend `judge run` will use.
    ///
    /// A missing GPU is fine (the virtual GPU runs every exercise); exits 1
    /// when the judge cannot build or run here.
    Doctor {
        /// Check for running harnesses built elsewhere (`judge run --prebuilt
        /// DIR`): the Rust toolchain is then not needed.
        #[arg(long)]
        prebuilt: bool,
    },
    /// Grade submissions with the judge's own checks (instructor mode).
    ///
    /// Every exercise of the course, for one submission or a class, into
    /// JSON, JUnit XML or Gradescope results, rewritten after each exercise.
    Grade(GradeArgs),
    /// Build harness binaries without running them, for `--prebuilt`.
    ///
    /// For GPU machines without Rust: the course's harnesses (exercise,
    /// solution, known-wrong variants) and, if named, the submissions'.
    Build(BuildArgs),
    /// The sandbox's launcher: the judge starts itself with it around
    /// every build and run of student code. Not for people.
    #[command(name = "__sandbox", hide = true)]
    Sandbox(LaunchArgs),
}

/// Which backend to run on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum BackendArg {
    /// CUDA if a GPU is present, else the virtual GPU.
    #[default]
    Auto,
    /// A real GPU.
    Cuda,
    /// The deterministic virtual GPU.
    Virtual,
}

impl From<BackendArg> for gpu::Backend {
    fn from(arg: BackendArg) -> Self {
        match arg {
            BackendArg::Auto => Self::Auto,
            BackendArg::Cuda => Self::Cuda,
            BackendArg::Virtual => Self::Virtual,
        }
    }
}

/// Options shared by the verbs that run checks.
#[derive(Clone, Debug, Args)]
pub(crate) struct RunOptions {
    /// Where to run the checks.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub(crate) backend: BackendArg,
    /// Use harnesses built by `judge build --out DIR` (for GPU machines without Rust).
    #[arg(long, value_name = "DIR")]
    pub(crate) prebuilt: Option<PathBuf>,
    /// Decide the verdicts in the learner's process, not in the judge's
    /// own (the default on every backend): to compare the two or to audit,
    /// never to grade work you do not trust. The results record where each
    /// exercise was decided.
    #[arg(long)]
    pub(crate) in_process: bool,
    #[command(flatten)]
    pub(crate) sandbox: SandboxArgs,
}

/// The sandbox every build and run of student code happens in.
#[derive(Clone, Debug, Args)]
#[command(next_help_heading = "Sandbox")]
pub(crate) struct SandboxArgs {
    /// Build and run student code without the sandbox, with the judge's
    /// own rights (recorded in the results). `grade` refuses to start
    /// without isolation of files unless given this.
    #[arg(long)]
    pub(crate) no_sandbox: bool,
    /// When the judge runs as root: the unprivileged user and group that
    /// build and run student code.
    #[arg(long, value_name = "UID:GID", default_value_t = User::NOBODY)]
    pub(crate) sandbox_user: User,
    /// Data memory of each sandboxed process, in GiB; where the sandbox has
    /// a control group (`judge doctor` says), of all its processes together too.
    #[arg(long, value_name = "GIB", default_value_t = Limits::default().memory / GIB)]
    pub(crate) memory_limit: u64,
    /// Processes and threads of one sandbox where it has a control group
    /// (`judge doctor` says), else of the sandbox user.
    #[arg(long, value_name = "N", default_value_t = Limits::default().processes)]
    pub(crate) process_limit: u64,
    /// The largest file a sandboxed process may write, in GiB.
    #[arg(long, value_name = "GIB", default_value_t = Limits::default().file_size / GIB)]
    pub(crate) file_size_limit: u64,
    /// CPU time of each sandboxed process, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = Limits::default().cpu_s)]
    pub(crate) cpu_limit: u64,
    /// What one sandbox (a build or a run of a submission) may add to its
    /// folders, all its files together, in GiB (a fraction such as 0.5 too).
    #[arg(long, value_name = "GIB", default_value_t = (Limits::default().disk / GIB) as f64,
          value_parser = disk_gib)]
    pub(crate) disk_limit: f64,
    /// The wall-clock limit of one build of a student's crate, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = SandboxConfig::default().build_timeout.as_secs())]
    pub(crate) build_timeout: u64,
}

impl SandboxArgs {
    /// The sandbox these options ask for.
    pub(crate) fn config(&self) -> SandboxConfig {
        SandboxConfig {
            enabled: !self.no_sandbox,
            user: self.sandbox_user,
            limits: Limits {
                memory: self.memory_limit.saturating_mul(GIB),
                processes: self.process_limit,
                file_size: self.file_size_limit.saturating_mul(GIB),
                cpu_s: self.cpu_limit,
                disk: (self.disk_limit * GIB as f64) as u64,
            },
            build_timeout: Duration::from_secs(self.build_timeout),
        }
    }
}

/// A disk limit in GiB: a positive number, whole or not.
fn disk_gib(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(gib) if gib.is_finite() && gib > 0.0 && gib <= 1e6 => Ok(gib),
        _ => Err(format!(
            "`{text}` is not a size in GiB: give a positive number, such as `2` or `0.5`"
        )),
    }
}

/// `judge __sandbox`: one stage of the launcher.
#[derive(Clone, Debug, Args)]
pub(crate) struct LaunchArgs {
    /// Which stage.
    #[arg(long, value_enum)]
    pub(crate) stage: Stage,
    /// What the sandbox allows (JSON).
    #[arg(long)]
    pub(crate) policy: String,
    /// What the stages before put in place (JSON).
    #[arg(long)]
    pub(crate) applied: Option<String>,
    /// Print the layers put in place instead of running a program.
    #[arg(long)]
    pub(crate) probe: bool,
    /// The program and its arguments.
    #[arg(last = true)]
    pub(crate) program: Vec<OsString>,
}

/// `judge verify`.
#[derive(Clone, Debug, Args)]
pub(crate) struct VerifyArgs {
    /// Only these exercises (`102 103`); default: all of them. The manifest
    /// and the folders are checked either way.
    pub(crate) ids: Vec<String>,
    /// Record every exercise's folder as its starter in
    /// `exercises/starters.toml` (what `judge reset` puts back), and check
    /// nothing else. Run it after changing a starter, and commit the file.
    #[arg(long, conflicts_with = "ids")]
    pub(crate) record_starters: bool,
    /// Write a class made from the course into DIR (a new folder), and
    /// check nothing else: every solution, starter and known-wrong variant
    /// in some student's submission, for a dry run of `judge grade`
    /// (`DIR/CLASS.md` says who got what).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["ids", "record_starters"])]
    pub(crate) write_class: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub(crate) options: RunOptions,
}

/// `judge run`.
#[derive(Clone, Debug, Args)]
pub(crate) struct RunArgs {
    /// The exercise id (`101`).
    pub(crate) id: String,
    /// Run the reference solution instead of your crate.
    #[arg(long)]
    pub(crate) solution: bool,
    #[command(flatten)]
    pub(crate) options: RunOptions,
    /// Write your timeline (from the checks that draw one) to this SVG file.
    ///
    /// On a real GPU, the GPU lanes come from timing every operation with
    /// events, a few microseconds of CPU per call.
    #[arg(long, value_name = "FILE.svg")]
    pub(crate) timeline: Option<PathBuf>,
    /// Write your trace (Chrome trace JSON, opens in Perfetto) to this file.
    #[arg(long, value_name = "FILE.json")]
    pub(crate) trace: Option<PathBuf>,
}

/// `judge watch`.
#[derive(Clone, Debug, Args)]
pub(crate) struct WatchArgs {
    /// The exercise to start with (`105`); default: the first one not passed yet.
    pub(crate) id: Option<String>,
    /// Do not watch files: press `r` (or Enter) to run again (for folders
    /// where file watching does not work, such as a Windows drive under WSL2).
    #[arg(long)]
    pub(crate) manual: bool,
    /// Where to run the checks.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub(crate) backend: BackendArg,
}

/// Whose work: one submission, or a class of them (optionally one shard).
#[derive(Clone, Debug, Args)]
pub(crate) struct Submissions {
    /// One student's submission: a folder holding their `exercises/ID-SLUG/` crates.
    #[arg(long, value_name = "DIR")]
    pub(crate) submission: Option<PathBuf>,
    /// A class: every folder inside DIR is one submission, taken in name order.
    #[arg(long, value_name = "DIR", conflicts_with = "submission")]
    pub(crate) class: Option<PathBuf>,
    /// Take only shard I of N of the class: its submissions I, I+N, I+2N, ...
    /// (1-based, in name order). Shards 1/N to N/N on N machines cover every
    /// submission exactly once.
    #[arg(
        long,
        value_name = "I/N",
        requires = "class",
        conflicts_with = "submission"
    )]
    pub(crate) shard: Option<Shard>,
}

impl Submissions {
    /// Whose work these options name.
    pub(crate) fn whose(&self) -> Whose {
        match (&self.submission, &self.class) {
            (Some(dir), _) => Whose::One(dir.clone()),
            (None, Some(dir)) => Whose::Class {
                dir: dir.clone(),
                shard: self.shard,
            },
            (None, None) => Whose::Nobody,
        }
    }
}

/// `judge grade`.
#[derive(Clone, Debug, Args)]
#[command(group(ArgGroup::new("whose").required(true).args(["submission", "class", "merge"])))]
pub(crate) struct GradeArgs {
    #[command(flatten)]
    pub(crate) who: Submissions,
    /// Grade nothing: join the results files of a class graded in shards
    /// (all JSON, or all JUnit) into one, written to `--out`, with the
    /// class's gradebook and report beside it (from JSON results).
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["submission", "class", "keep", "seed", "budget"])]
    pub(crate) merge: Vec<PathBuf>,
    /// The results' format.
    #[arg(long, value_enum, default_value_t)]
    pub(crate) format: GradeFormat,
    /// Where to write the results: a file, or a folder for Gradescope with
    /// `--class`. Rewritten after each exercise, so that an interrupted run
    /// keeps what it finished.
    #[arg(long, value_name = "PATH")]
    pub(crate) out: Option<PathBuf>,
    /// Keep the exact sources graded (the judge's manifest and the student's
    /// `src/`) in `DIR/SUBMISSION/ID-SLUG/`, for an audit.
    #[arg(long, value_name = "DIR")]
    pub(crate) keep: Option<PathBuf>,
    /// The seed of the checks' generated workloads (default: chosen at
    /// grading time, and recorded in the results): give a recorded one to
    /// grade again alike.
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,
    /// The wall time, in seconds, one submission's builds and checks may
    /// take in all; once used, its exercises left are `over_budget` (default:
    /// 4 times what the course's own solutions take, measured at the start).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) budget: Option<u64>,
    #[command(flatten)]
    pub(crate) options: RunOptions,
}

/// `judge build`.
#[derive(Clone, Debug, Args)]
pub(crate) struct BuildArgs {
    /// Where the harnesses go, with their `index.json`.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: PathBuf,
    /// Also build these submissions' harnesses, into `DIR/NAME/`.
    #[command(flatten)]
    pub(crate) who: Submissions,
    /// Also build each crate linked with its exercise's suite (a harness),
    /// for runs with `--in-process`; without it only the checkers and the
    /// agents are built, which every other run uses.
    #[arg(long)]
    pub(crate) in_process: bool,
    #[command(flatten)]
    pub(crate) sandbox: SandboxArgs,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn parses_the_verbs() {
        let cli =
            Cli::try_parse_from(["judge", "run", "101", "--backend", "virtual", "--solution"])
                .unwrap();
        let Command::Run(args) = cli.command else {
            panic!()
        };
        assert_eq!(
            (args.id.as_str(), args.solution, args.options.backend),
            ("101", true, BackendArg::Virtual)
        );
        let err = Cli::try_parse_from(["judge", "run", "101", "--backend", "metal"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::InvalidValue);
        let err = Cli::try_parse_from(["judge", "frobnicate"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::InvalidSubcommand);
    }

    #[test]
    fn parses_watch_reset_and_doctor() {
        let cli = Cli::try_parse_from(["judge", "watch"]).unwrap();
        let Command::Watch(args) = cli.command else {
            panic!()
        };
        assert_eq!(
            (args.id, args.manual, args.backend),
            (None, false, BackendArg::Auto)
        );
        let cli = Cli::try_parse_from(["judge", "watch", "102", "--manual"]).unwrap();
        let Command::Watch(args) = cli.command else {
            panic!()
        };
        assert_eq!((args.id.as_deref(), args.manual), (Some("102"), true));
        let cli = Cli::try_parse_from(["judge", "reset", "101"]).unwrap();
        assert!(matches!(cli.command, Command::Reset { id } if id == "101"));
        let err = Cli::try_parse_from(["judge", "reset"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        let cli = Cli::try_parse_from(["judge", "doctor", "--prebuilt"]).unwrap();
        assert!(matches!(cli.command, Command::Doctor { prebuilt: true }));
        let err = Cli::try_parse_from(["judge", "doctor", "101"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::UnknownArgument);
    }

    #[test]
    fn parses_grade_and_build() {
        use clap::error::ErrorKind;
        let argv = "judge grade --class c --shard 2/3 --format junit";
        let cli = Cli::try_parse_from(argv.split(' ')).unwrap();
        let Command::Grade(args) = cli.command else {
            panic!()
        };
        assert_eq!(args.who.shard.map(|s| s.to_string()), Some("2/3".into()));
        assert_eq!(args.format, GradeFormat::Junit);
        let cli = Cli::try_parse_from("judge build --out d --submission s".split(' ')).unwrap();
        assert!(matches!(cli.command, Command::Build(args) if args.who.submission.is_some()));
        let kind = |argv: &str| Cli::try_parse_from(argv.split(' ')).unwrap_err().kind();
        let missing = [
            "judge grade",
            "judge build",
            "judge build --out d --shard 1/2",
        ];
        for argv in missing {
            assert_eq!(kind(argv), ErrorKind::MissingRequiredArgument, "{argv}");
        }
        let conflicting = [
            "judge grade --submission s --shard 1/2",
            "judge grade --submission s --class c",
        ];
        for argv in conflicting {
            assert_eq!(kind(argv), ErrorKind::ArgumentConflict, "{argv}");
        }
        assert_eq!(
            kind("judge grade --class c --shard 3/2"),
            ErrorKind::ValueValidation
        );
        assert_eq!(
            kind("judge grade --submission s --format x"),
            ErrorKind::InvalidValue
        );
    }
}
