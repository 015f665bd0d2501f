//! A class made from the course itself, for a dry run of grading before a
//! term (`judge verify --write-class DIR`): one submission folder per
//! student, each exercise of it the course's solution, its untouched
//! starter, one of its known-wrong variants, or missing, so that every
//! variant is in the class once and the grades are known in advance.
//!
//! Student `N` (from 1) gets, for an exercise with `V` variants (in name
//! order): variant `N` when `N <= V`; otherwise, in turn, the solution,
//! the starter, the solution again and nothing (not started). The class
//! has at least [`MIN_STUDENTS`] students, and four more than the exercise
//! with the most variants has, so that each exercise has solutions and
//! starters too. The last student's first exercise is in a folder named
//! for no exercise (its slug misspelt), as a student's may be.
//! `DIR/CLASS.md` says who got what.

use crate::course::Course;
use crate::manifest::Exercise;
use crate::variant::{self, Materialized, Variant};
use anyhow::{Context, Result, bail};
use std::fmt::Write as _;
use std::path::Path;
use walkdir::WalkDir;

/// The fewest students the class has.
pub(crate) const MIN_STUDENTS: usize = 50;

/// What one student has of one exercise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// The course's solution.
    Solution,
    /// The untouched starter.
    Starter,
    /// A known-wrong variant, by name.
    Variant(String),
    /// No folder: not started.
    Missing,
}

/// What student `n` (from 1) gets of an exercise with `variants`.
pub(crate) fn part(n: usize, variants: &[Variant]) -> Part {
    if let Some(variant) = n.checked_sub(1).and_then(|i| variants.get(i)) {
        return Part::Variant(variant.name.clone());
    }
    match (n - variants.len() - 1) % 4 {
        0 | 2 => Part::Solution,
        1 => Part::Starter,
        _ => Part::Missing,
    }
}

/// Writes the class into `dir` (which must be empty or absent); how many
/// students.
pub(crate) fn write(course: &Course, dir: &Path) -> Result<usize> {
    if dir.read_dir().is_ok_and(|mut d| d.next().is_some()) {
        bail!(
            "`{}` is not empty; write the class into a new folder",
            dir.display()
        );
    }
    let mut variants = Vec::new();
    for exercise in &course.manifest.exercises {
        variants.push(variant::load_all(&course.variants_dir(exercise))?);
    }
    let most = variants.iter().map(Vec::len).max().unwrap_or(0);
    let students = MIN_STUDENTS.max(most + 4);
    let mut table = table_head(course);
    for n in 1..=students {
        let name = format!("student-{n:02}");
        let _ = write!(table, "| {name} |");
        for (exercise, variants) in course.manifest.exercises.iter().zip(&variants) {
            let part = part(n, variants);
            let folder = match (
                n == students,
                exercise.id == course.manifest.exercises[0].id,
            ) {
                (true, true) => misspelt(exercise),
                _ => exercise.dir_name(),
            };
            let to = dir.join(&name).join("exercises").join(&folder);
            write_part(course, exercise, variants, &part, &to)?;
            let _ = write!(table, " {} |", describe(&part, &folder, exercise));
        }
        table.push('\n');
    }
    fs_err::write(dir.join("CLASS.md"), table)?;
    Ok(students)
}

/// The folder name of `exercise` with its slug misspelt (a letter left out).
fn misspelt(exercise: &Exercise) -> String {
    let mut slug = exercise.slug.clone();
    if let Some(at) = slug.find('-') {
        slug.remove(at);
    } else {
        slug.pop();
    }
    format!("{}-{slug}", exercise.id)
}

/// Writes what `part` names of `exercise` into the crate folder `to`.
fn write_part(
    course: &Course,
    exercise: &Exercise,
    variants: &[Variant],
    part: &Part,
    to: &Path,
) -> Result<()> {
    let from = match part {
        Part::Missing => return Ok(()),
        Part::Solution => course.solution_dir(exercise),
        Part::Starter => course.exercise_dir(exercise),
        Part::Variant(name) => {
            let variant = variants.iter().find(|v| v.name == *name).expect("listed");
            match variant.materialize(course, exercise)? {
                Materialized::Crate(dir) => dir,
                Materialized::Stale(why) => bail!(
                    "the variant `{name}` of exercise {} no longer applies ({why}); `judge verify` says more",
                    exercise.id
                ),
            }
        }
    };
    copy(&from, to)
}

/// Copies a crate's `Cargo.toml` and `src/` (what a student submits).
fn copy(from: &Path, to: &Path) -> Result<()> {
    fs_err::create_dir_all(to)?;
    fs_err::copy(from.join("Cargo.toml"), to.join("Cargo.toml"))?;
    for entry in WalkDir::new(from.join("src")) {
        let entry = entry.with_context(|| format!("cannot read `{}`", from.display()))?;
        let target = to.join(entry.path().strip_prefix(from).expect("under the crate"));
        if entry.file_type().is_dir() {
            fs_err::create_dir_all(&target)?;
        } else {
            fs_err::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// The head of `CLASS.md`: what it is, and a column per exercise.
fn table_head(course: &Course) -> String {
    let mut text = String::from(
        "# A class made from the course (`judge verify --write-class`)\n\n\
         Each exercise of each student is the course's solution, its untouched starter, one of \
         its known-wrong variants (each variant is in the class once) or not started. Grading \
         this class gives every solution full points, every starter none, and each variant the \
         points of the checks it does not fail.\n\n| student |",
    );
    for exercise in &course.manifest.exercises {
        let _ = write!(text, " {} |", exercise.id);
    }
    text.push_str("\n|---|");
    text.push_str(&"---|".repeat(course.manifest.exercises.len()));
    text.push('\n');
    text
}

/// How `CLASS.md` writes a part.
fn describe(part: &Part, folder: &str, exercise: &Exercise) -> String {
    let what = match part {
        Part::Solution => "solution".to_string(),
        Part::Starter => "starter".to_string(),
        Part::Variant(name) => format!("`{name}`"),
        Part::Missing => "not started".to_string(),
    };
    match folder == exercise.dir_name() || matches!(part, Part::Missing) {
        true => what,
        false => format!("{what} in `{folder}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `count` variants named `v1`, `v2`, ….
    fn variants(count: usize) -> Vec<Variant> {
        (1..=count)
            .map(|i| Variant::named(&format!("v{i}")))
            .collect()
    }

    #[test]
    fn each_variant_once_then_solutions_starters_and_missing_in_turn() {
        let two = variants(2);
        let parts: Vec<Part> = (1..=7).map(|n| part(n, &two)).collect();
        assert_eq!(
            parts,
            [
                Part::Variant("v1".into()),
                Part::Variant("v2".into()),
                Part::Solution,
                Part::Starter,
                Part::Solution,
                Part::Missing,
                Part::Solution,
            ]
        );
        assert_eq!(part(1, &[]), Part::Solution);
    }
}
