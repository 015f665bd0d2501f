//! `judge verify`: the author gate, which CI runs.
//!
//! The course is in order when the manifest and the folders agree, every
//! solution passes every check, every untouched starter fails, and every
//! known-wrong variant (a small edit of the solution under
//! `judge/variants/ID/`, one per mistake a learner makes: see [`variant`])
//! applies to the solution and fails the checks it names with the diagnosis
//! it names.

mod layout;
pub(crate) mod variant;

use crate::cli::VerifyArgs;
use crate::course::Course;
use crate::exit;
use crate::manifest::Exercise;
use crate::pipeline::{Options, judge_crate};
use crate::report::ExerciseReport;
use anstyle::{AnsiColor, Style};
use anyhow::Result;
use std::io::Write;
use std::path::Path;
use variant::{Materialized, Variant};

/// One finding of the gate: a passed item or a problem.
struct Finding {
    ok: bool,
    what: String,
    why: Option<String>,
}

/// Runs the gate and prints one line per item; exit 1 if anything is wrong.
pub(crate) fn verify(root: Option<&Path>, args: &VerifyArgs) -> Result<u8> {
    let course = Course::open(root)?;
    let options = &args.options;
    let mut chosen = Vec::new();
    for id in &args.ids {
        chosen.push(course.manifest.get(id)?.id);
    }
    let mut out = anstream::stdout();
    let mut problems = 0;
    let layout = layout::check(&course);
    for finding in &layout {
        problems += report(&mut out, finding)?;
    }
    let layout_ok = layout.iter().all(|f| f.ok);
    let run = Options {
        backend: options.backend.name().into(),
        prebuilt: options.prebuilt.clone(),
        progress: false,
        artifacts: None,
        seal_snapshots: false,
    };
    let wanted = |e: &&Exercise| chosen.is_empty() || chosen.contains(&e.id);
    for exercise in course.manifest.exercises.iter().filter(wanted) {
        if !layout_ok {
            break;
        }
        for finding in check_exercise(&course, exercise, &run)? {
            problems += report(&mut out, &finding)?;
        }
    }
    if problems == 0 {
        writeln!(out, "\nthe course is in order")?;
        Ok(exit::OK)
    } else {
        writeln!(out, "\n{problems} problem(s) found")?;
        Ok(exit::FAILED)
    }
}

fn report(out: &mut dyn Write, finding: &Finding) -> Result<usize> {
    let (mark, style) = if finding.ok {
        ("✓", AnsiColor::Green.on_default())
    } else {
        ("✗", AnsiColor::Red.on_default())
    };
    writeln!(out, "{style}{mark}{style:#} {}", finding.what)?;
    let dim = Style::new().dimmed();
    for line in finding.why.iter().flat_map(|why| why.lines()) {
        writeln!(out, "    {dim}{line}{dim:#}")?;
    }
    Ok(usize::from(!finding.ok))
}

/// The solution, the starter and the variants of one exercise.
fn check_exercise(course: &Course, exercise: &Exercise, run: &Options) -> Result<Vec<Finding>> {
    let id = exercise.id;
    let solution = judge_crate(
        course,
        exercise,
        &course.solution_dir(exercise),
        "solution",
        run,
    )?;
    let starter = judge_crate(
        course,
        exercise,
        &course.exercise_dir(exercise),
        "exercise",
        run,
    )?;
    let mut findings = vec![
        Finding {
            ok: solution.passed(),
            what: format!("{id}: the solution passes every check"),
            why: (!solution.passed()).then(|| failures(&solution)),
        },
        Finding {
            ok: !starter.passed(),
            what: format!("{id}: the untouched starter fails"),
            why: starter
                .passed()
                .then(|| "every check passed: the exercise is already solved".to_string()),
        },
    ];
    for variant in variant::load_all(&course.variants_dir(exercise))? {
        findings.push(check_variant(course, exercise, &variant, run)?);
    }
    Ok(findings)
}

fn check_variant(
    course: &Course,
    exercise: &Exercise,
    variant: &Variant,
    run: &Options,
) -> Result<Finding> {
    let what = format!(
        "{}: the variant `{}` ({}) is caught",
        exercise.id, variant.name, variant.mistake
    );
    let krate = match variant.materialize(course, exercise)? {
        Materialized::Crate(krate) => krate,
        Materialized::Stale(why) => {
            return Ok(Finding {
                ok: false,
                what,
                why: Some(why),
            });
        }
    };
    let report = judge_crate(
        course,
        exercise,
        &krate,
        &format!("variant-{}", variant.name),
        run,
    )?;
    let verdict = variant.judge(&report);
    Ok(Finding {
        ok: verdict.is_ok(),
        what,
        why: verdict.err(),
    })
}

/// The failing checks of a report, one per line.
fn failures(report: &ExerciseReport) -> String {
    if report.checks().is_empty() {
        return match &report.stage {
            crate::report::Stage::CompileError { log } => format!("it does not compile:\n{log}"),
            crate::report::Stage::HarnessFailure { reason } => reason.clone(),
            crate::report::Stage::Checked { .. } => "no checks ran".into(),
        };
    }
    report
        .checks()
        .iter()
        .filter(|c| !c.outcome.passed())
        .map(|c| {
            format!(
                "`{}` failed: {}",
                c.info.name,
                crate::report::describe(&c.outcome).replace('\n', "; ")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
