//! The manifest and the folders agree: every exercise has its crate, its
//! solution (file for file the same layout) and its check suite, and every
//! folder is in the manifest.

use super::Finding;
use crate::course::{Course, missing_suite};
use crate::manifest::Exercise;
use std::collections::BTreeSet;
use std::path::Path;

/// One finding per problem, or one `ok` finding when all agree.
pub(super) fn check(course: &Course) -> Vec<Finding> {
    let mut problems: Vec<String> = Vec::new();
    for exercise in &course.manifest.exercises {
        problems.extend(check_exercise(course, exercise));
    }
    for top in ["exercises", "solutions"] {
        problems.extend(unlisted(course, top));
    }
    if problems.is_empty() {
        return vec![Finding {
            ok: true,
            what: "the manifest and the folders agree".into(),
            why: None,
        }];
    }
    problems
        .into_iter()
        .map(|p| Finding {
            ok: false,
            what: p,
            why: None,
        })
        .collect()
}

fn check_exercise(course: &Course, exercise: &Exercise) -> Vec<String> {
    let (ex, sol) = (course.exercise_dir(exercise), course.solution_dir(exercise));
    let mut problems = Vec::new();
    for (dir, what) in [(&ex, "exercise crate"), (&sol, "solution crate")] {
        if !dir.join("Cargo.toml").is_file() || !dir.join("src/lib.rs").is_file() {
            problems.push(format!(
                "{}: the {what} `{}` needs a `Cargo.toml` and `src/lib.rs`",
                exercise.id,
                dir.display()
            ));
        } else if lib_name(dir).as_deref() != Some(exercise.lib.as_str()) {
            problems.push(format!(
                "{}: `{}` must have `[lib] name = \"{}\"`",
                exercise.id,
                dir.join("Cargo.toml").display(),
                exercise.lib
            ));
        }
    }
    if !ex.join("README.md").is_file() {
        problems.push(format!(
            "{}: the statement `{}` is missing",
            exercise.id,
            ex.join("README.md").display()
        ));
    }
    let checks = course.checks_file(exercise);
    if !checks.is_file() {
        problems.push(format!("{}: {}", exercise.id, missing_suite(&checks)));
    }
    let (a, b) = (sources(&ex.join("src")), sources(&sol.join("src")));
    if ex.is_dir() && sol.is_dir() && a != b {
        let only: Vec<_> = a.symmetric_difference(&b).cloned().collect();
        problems.push(format!(
            "{}: the exercise and the solution must mirror each other; differing files: {}",
            exercise.id,
            only.join(", ")
        ));
    }
    problems
}

/// The `[lib] name` of the crate in `dir`.
fn lib_name(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    let value: toml::Value = toml::from_str(&text).ok()?;
    value.get("lib")?.get("name")?.as_str().map(str::to_string)
}

/// The files under `src`, relative to it.
fn sources(src: &Path) -> BTreeSet<String> {
    walkdir::WalkDir::new(src)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| {
            e.path()
                .strip_prefix(src)
                .ok()
                .map(|p| p.display().to_string())
        })
        .collect()
}

/// Folders under `top` that the manifest does not list.
fn unlisted(course: &Course, top: &str) -> Vec<String> {
    let known: BTreeSet<String> = course
        .manifest
        .exercises
        .iter()
        .map(Exercise::dir_name)
        .collect();
    let Ok(entries) = std::fs::read_dir(course.root.join(top)) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !known.contains(name))
        .map(|name| format!("`{top}/{name}` is not in the manifest `exercises/info.toml`"))
        .collect()
}
