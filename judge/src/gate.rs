//! The author gate, as data: what `judge verify` checks and finds.
//!
//! The course is in order when the manifest and the folders agree
//! ([`layout`]), every solution passes every check, every untouched starter
//! fails, and every known-wrong variant (a small edit of the solution under
//! `judge/variants/ID/`, one per mistake a learner makes: see
//! [`crate::variant`]) applies to the solution and fails the checks it names
//! with the diagnosis it names.

mod layout;

use crate::course::Course;
use crate::judging::{Options, judge_crate};
use crate::manifest::Exercise;
use crate::report::{ExerciseReport, Stage, describe};
use crate::role::Role;
use crate::variant::{self, Materialized, Variant};
use anyhow::Result;

/// One finding of the gate: a passed item or a problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Finding {
    /// Whether the item is in order.
    pub(crate) ok: bool,
    /// The item, in words.
    pub(crate) what: String,
    /// Why it is not in order, when it is not.
    pub(crate) why: Option<String>,
}

/// The findings of the layout check: the manifest against the folders.
pub(crate) fn check_layout(course: &Course) -> Vec<Finding> {
    layout::check(course)
}

/// The solution, the starter and the variants of one exercise.
pub(crate) fn check_exercise(
    course: &Course,
    exercise: &Exercise,
    options: &Options,
) -> Result<Vec<Finding>> {
    let id = exercise.id;
    let judge = |dir: &std::path::Path, role| judge_crate(course, exercise, dir, &role, options);
    let solution = judge(&course.solution_dir(exercise), Role::Solution)?;
    let starter = judge(&course.exercise_dir(exercise), Role::Exercise)?;
    let mut findings = vec![
        Finding {
            ok: solution.passed(),
            what: format!("{id}: the solution passes every check"),
            why: (!solution.passed()).then(|| failures(&solution)),
        },
        Finding {
            ok: starter.score() == 0.0,
            what: format!("{id}: the untouched starter earns no point"),
            why: (starter.score() > 0.0).then(|| earned_by_the_starter(&starter)),
        },
    ];
    for variant in variant::load_all(&course.variants_dir(exercise))? {
        findings.push(check_variant(course, exercise, &variant, options)?);
    }
    Ok(findings)
}

/// Whether one variant is caught with its diagnosis.
fn check_variant(
    course: &Course,
    exercise: &Exercise,
    variant: &Variant,
    options: &Options,
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
    let role = Role::Variant(variant.name.clone());
    let report = judge_crate(course, exercise, &krate, &role, options)?;
    let verdict = variant.judge(&report);
    Ok(Finding {
        ok: verdict.is_ok(),
        what,
        why: verdict.err(),
    })
}

/// Which checks earn the untouched starter its points, and what to do.
fn earned_by_the_starter(starter: &ExerciseReport) -> String {
    let earned: Vec<String> = starter
        .checks()
        .iter()
        .filter(|c| starter.earns(c))
        .map(|c| format!("`{}`", c.info.name))
        .collect();
    format!(
        "it earns {:.1} of {} points: {} pass on the starter; weight such a check 0, or guard it (`requires = [...]` in its `check!`) with a check the starter fails",
        starter.score(),
        starter.max_points,
        earned.join(", ")
    )
}

/// The failing checks of a report, one per line.
fn failures(report: &ExerciseReport) -> String {
    if report.checks().is_empty() {
        return match &report.stage {
            Stage::CompileError { log } => format!("it does not compile:\n{log}"),
            Stage::HarnessFailure { reason } => reason.clone(),
            Stage::Checked { .. } => "no checks ran".into(),
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
                describe(&c.outcome).replace('\n', "; ")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
