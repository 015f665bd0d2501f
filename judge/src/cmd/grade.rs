//! `judge grade`: instructor mode. Grades the submissions named into the
//! format asked for ([`crate::grading`] says how), a short summary per
//! submission on stdout. Exit 0 when grading completed, whatever the
//! students' results.

use crate::cli::GradeArgs;
use crate::course::Course;
use crate::exit;
use crate::files::write_atomically;
use crate::grading::output::{Derived, Sink};
use crate::grading::{self, Budget, GradeEvent, Plan, summary};
use crate::judging::Options;
use crate::prebuilt::Index;
use crate::sandbox::Sandbox;
use crate::submission;
use crate::ticker::Shown;
use anyhow::{Result, bail};
use std::io::Write;
use std::path::Path;

/// Grades the submissions `args` names; writes and summarizes the results.
pub(crate) fn grade(root: Option<&Path>, args: &GradeArgs) -> Result<u8> {
    if !args.merge.is_empty() {
        return merge(args);
    }
    let course = Course::open(root)?;
    let whose = args.who.whose();
    let submissions = submission::submissions(&whose)?;
    let prebuilt = args
        .options
        .prebuilt
        .as_deref()
        .map(Index::load)
        .transpose()?;
    let sandbox = Sandbox::new(args.options.sandbox.config());
    if sandbox.config().enabled && !sandbox.layers().isolates_files() {
        bail!("{NO_ISOLATION}");
    }
    let sink = Sink::new(args.format, args.out.as_deref(), args.who.class.is_some())?;
    let seed = args.seed.unwrap_or_else(|| fastrand::u64(..));
    let options = Options {
        backend: args.options.backend.into(),
        prebuilt: None,
        progress: Shown::on_stderr(),
        artifacts: None,
        seal_snapshots: true,
        sandbox,
        seed: Some(seed),
        checkers: None,
        in_process: args.options.in_process,
        deadline: None,
    };
    let plan = Plan {
        sink: &sink,
        options: &options,
        prebuilt: prebuilt.as_ref(),
        keep: args.keep.as_deref(),
        budget: match args.budget {
            Some(seconds) => Budget::Given(std::time::Duration::from_secs(seconds)),
            None => Budget::Measured,
        },
    };
    let mut stdout = anstream::stdout();
    let mut shown = 0;
    let mut failed_to_print = None;
    grading::grade(&course, submissions, args.who.shard, &plan, &mut |event| {
        if let Err(err) = show(event, &options, &mut stdout, &mut shown) {
            failed_to_print.get_or_insert(err);
        }
    })?;
    match failed_to_print {
        Some(err) => Err(err.into()),
        None => Ok(exit::OK),
    }
}

/// `judge grade --merge`: joins the shards' results into `--out` (by
/// default `grade.json` or `grade.xml`), with the gradebook and the report
/// beside JSON results.
fn merge(args: &GradeArgs) -> Result<u8> {
    let merged = grading::merge::merge(&args.merge)?;
    let place = match (&args.out, merged.results.is_some()) {
        (Some(out), _) => out.clone(),
        (None, true) => "grade.json".into(),
        (None, false) => "grade.xml".into(),
    };
    if args.merge.iter().any(|file| same_file(file, &place)) {
        bail!(
            "`--out {}` is one of the files merged: write the merged results to another file",
            place.display()
        );
    }
    if let Some(folder) = place.parent().filter(|f| !f.as_os_str().is_empty()) {
        fs_err::create_dir_all(folder)?;
    }
    write_atomically(&place, &merged.text)?;
    eprintln!(
        "merged {} files into `{}`",
        args.merge.len(),
        place.display()
    );
    for shard in &merged.missing {
        eprintln!(
            "note: shard {shard} is missing: its submissions are not in the merge, which says `\"complete\": false`"
        );
    }
    match &merged.results {
        Some(results) => {
            let derived = Derived::beside(&place, false);
            derived.write(results)?;
            for file in derived.paths() {
                eprintln!("wrote `{}`", file.display());
            }
        }
        None => eprintln!(
            "note: the gradebook and the class report come from JSON results: merge the shards' `--format json` files for them"
        ),
    }
    Ok(exit::OK)
}

/// Whether `a` and `b` name one file (both existing), or the same path.
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Shows one event: notes on stderr (first the sandbox's layers and the
/// seed), each submission's summary on stdout.
fn show(
    event: GradeEvent<'_>,
    options: &Options,
    stdout: &mut dyn Write,
    shown: &mut usize,
) -> std::io::Result<()> {
    match event {
        GradeEvent::Started { count, shard } => {
            let plural = if count == 1 { "" } else { "s" };
            match shard {
                Some(shard) => {
                    eprintln!("grading {count} submission{plural} (shard {shard} of the class)")
                }
                None => eprintln!("grading {count} submission{plural}"),
            }
            eprintln!("sandbox: {}", options.sandbox.layers().summary());
            eprintln!("verdicts: {}", options.decided().explain());
            let seed = options.seed.unwrap_or_default();
            eprintln!("seed: {seed} (chosen now; `--seed {seed}` grades with it again)");
        }
        GradeEvent::Budget { budget, reference } => match reference {
            Some(reference) => eprintln!(
                "budget: {} s per submission for building and checking all its exercises (the course's solutions took {:.0} s: {} times that, never under {} s; `--budget SECONDS` sets it)",
                budget.as_secs(),
                reference.as_secs_f64(),
                grading::budget::MULTIPLE,
                grading::budget::FLOOR.as_secs()
            ),
            None => eprintln!(
                "budget: {} s per submission for building and checking all its exercises",
                budget.as_secs()
            ),
        },
        GradeEvent::NoExercises(submission) => match &submission.note {
            Some(note) => eprintln!("note: {note}"),
            None => eprintln!(
                "note: `{}` has no `exercises/` folder, so nothing in it is started (a class folder goes with `--class`)",
                submission.dir.display()
            ),
        },
        GradeEvent::Graded(result) => {
            if *shown > 0 {
                writeln!(stdout)?;
            }
            *shown += 1;
            summary::render(result, stdout)?;
        }
        GradeEvent::Finished(files) => {
            for file in files {
                eprintln!("wrote `{}`", file.display());
            }
        }
    }
    Ok(())
}

/// Why grading does not start without landlock.
const NO_ISOLATION: &str = "the sandbox cannot isolate files on this machine (no landlock: Linux \
     5.13 or newer, with `landlock` in its `lsm=` list; `judge doctor` lists the layers in \
     force); grade on such a machine or in a container on one, or pass `--no-sandbox` to grade \
     with student code running with the judge's rights (the results record it)";
