//! A submission's budget: the wall time the builds and checks of all its
//! exercises may take, so that one submission cannot cost the class run
//! every exercise's time limit (a crate that sleeps just under the limit in
//! each exercise, a constant evaluated at compile time that never ends).
//!
//! The instructor gives it (`judge grade --budget SECONDS`), or the judge
//! measures what the course's own solutions take, graded exactly as a
//! student's submission is (copied into a fresh submission folder, built in
//! the sandbox from the judge's cache, checked), and allows [`MULTIPLE`]
//! times that, and never less than [`FLOOR`]. The measurement is one more
//! submission's grading, kept (`target/judge/budget/reference.json`) for the
//! same course (its seal's digest), judge and way of deciding, so that the
//! runs after the first cost nothing more.

use super::{Plan, judge_exercise};
use crate::cache::Cache;
use crate::course::Course;
use crate::judging::{Options, judge_crate};
use crate::role::Role;
use crate::submission::Submission;
use anyhow::Result;
use std::time::{Duration, Instant};

/// How many times what the course's solutions take a submission may take.
pub(crate) const MULTIPLE: u32 = 4;

/// The least budget, whatever the solutions took: room for a build that
/// finds the machine busy.
pub(crate) const FLOOR: Duration = Duration::from_secs(120);

/// What the course's solutions took, graded as a submission is, and the
/// budget it gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Measured {
    /// The solutions' builds and checks, in all.
    pub(crate) reference: Duration,
    /// The budget of every submission: [`MULTIPLE`] times that, at least [`FLOOR`].
    pub(crate) budget: Duration,
}

/// The budget from a measurement of `reference`.
pub(crate) fn from_reference(reference: Duration) -> Duration {
    (reference * MULTIPLE).max(FLOOR)
}

/// Grades the course's solutions as one submission (with prebuilt
/// harnesses when `plan` has them: their runs alone) and returns what they
/// took and the budget it gives.
pub(crate) fn measure(course: &Course, plan: &Plan<'_>, cache: Option<&Cache>) -> Result<Measured> {
    let key = key(course, plan)?;
    let kept = kept_file(course);
    if let Some(reference) = kept_reference(&kept, &key) {
        return Ok(Measured {
            reference,
            budget: from_reference(reference),
        });
    }
    let measured = measure_now(course, plan, cache)?;
    keep_reference(&kept, &key, measured.reference);
    Ok(measured)
}

/// What a kept measurement must match: the course's content, the judge,
/// where verdicts are decided, and whether harnesses are prebuilt.
fn key(course: &Course, plan: &Plan<'_>) -> Result<String> {
    Ok(format!(
        "{} {} {:?} {}",
        crate::seal::Seal::of(course)?.digest(),
        env!("CARGO_PKG_VERSION"),
        plan.options.decided(),
        plan.prebuilt.is_some()
    ))
}

fn kept_file(course: &Course) -> std::path::PathBuf {
    course.scratch("budget").join("reference.json")
}

/// The measurement kept for `key`, in seconds.
fn kept_reference(file: &std::path::Path, key: &str) -> Option<Duration> {
    let text = std::fs::read_to_string(file).ok()?;
    let kept: std::collections::BTreeMap<String, f64> = serde_json::from_str(&text).ok()?;
    kept.get(key)
        .filter(|s| s.is_finite() && **s > 0.0)
        .map(|s| Duration::from_secs_f64(*s))
}

/// Keeps `reference` for `key` (a file that cannot be written costs only a
/// measurement next time).
fn keep_reference(file: &std::path::Path, key: &str, reference: Duration) {
    let mut kept: std::collections::BTreeMap<String, f64> = std::fs::read_to_string(file)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    kept.insert(key.to_string(), reference.as_secs_f64());
    if let (Some(dir), Ok(text)) = (file.parent(), serde_json::to_string_pretty(&kept)) {
        let _ = std::fs::create_dir_all(dir);
        let _ = crate::files::write_atomically(file, &text);
    }
}

/// Grades the solutions now; what they took.
fn measure_now(course: &Course, plan: &Plan<'_>, cache: Option<&Cache>) -> Result<Measured> {
    let started = Instant::now();
    match plan.prebuilt {
        Some(index) => {
            let options = Options {
                prebuilt: Some(index.dir().to_path_buf()),
                checkers: Some(index.dir().to_path_buf()),
                ..plan.options.clone()
            };
            for exercise in &course.manifest.exercises {
                let solution = course.solution_dir(exercise);
                judge_crate(course, exercise, &solution, &Role::Solution, &options)?;
            }
        }
        None => {
            let submission = solutions_as_a_submission(course)?;
            for exercise in &course.manifest.exercises {
                judge_exercise(course, &submission, exercise, plan, cache, None)?;
            }
            let _ = std::fs::remove_dir_all(submission.scratch_dir(course)?);
            let _ = std::fs::remove_dir_all(&submission.dir);
        }
    }
    let reference = started.elapsed();
    Ok(Measured {
        reference,
        budget: from_reference(reference),
    })
}

/// A fresh submission folder holding every solution's `Cargo.toml` and
/// `src/` as a student's `exercises/ID-SLUG/`.
fn solutions_as_a_submission(course: &Course) -> Result<Submission> {
    let dir = crate::scratch::folder(course, "budget")?.join(format!(
        "solutions-{}-{:08x}",
        std::process::id(),
        fastrand::u32(..)
    ));
    for exercise in &course.manifest.exercises {
        let from = course.solution_dir(exercise);
        let to = dir.join("exercises").join(exercise.dir_name());
        crate::scratch::copy_crate(&from, &to, &from)?;
    }
    Ok(Submission {
        name: "the course's solutions".into(),
        dir,
        note: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_a_multiple_of_the_reference_never_below_the_floor() {
        assert_eq!(
            from_reference(Duration::from_secs(100)),
            Duration::from_secs(400)
        );
        assert_eq!(from_reference(Duration::from_secs(1)), FLOOR);
    }
}
