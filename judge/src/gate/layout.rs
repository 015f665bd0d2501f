//! The manifest and the folders agree: every exercise has its crate, its
//! solution (file for file the same layout) and its check suite, and every
//! folder is in the manifest. And the manifest follows the book: its
//! exercises in the order of their chapters in `chapters/SUMMARY.md`, the
//! easiest first within a chapter. And `exercises/starters.toml` records
//! every starter as its folder is (what `judge reset` puts back).

use super::Finding;
use crate::book;
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
    problems.extend(out_of_order(course));
    problems.extend(crate::starter::shipped::problems(course));
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

/// Where the manifest leaves the book's order: an exercise of a chapter the
/// book does not number, one listed before an exercise of an earlier
/// chapter, or one harder than the exercise after it in the same chapter.
/// (A course without `chapters/SUMMARY.md` has no order to follow.)
fn out_of_order(course: &Course) -> Vec<String> {
    let chapters = book::chapters(&course.root);
    if chapters.is_empty() {
        return Vec::new();
    }
    let mut problems = Vec::new();
    let mut placed = Vec::new();
    for e in &course.manifest.exercises {
        match book::find(&chapters, &e.chapter) {
            Some(c) => placed.push((c.number, e.difficulty, e)),
            None => problems.push(format!(
                "{}: its chapter `{}` is not a numbered chapter of `chapters/SUMMARY.md`",
                e.id, e.chapter
            )),
        }
    }
    for pair in placed.windows(2) {
        let ((c1, d1, a), (c2, d2, b)) = (pair[0], pair[1]);
        if (c1, d1) > (c2, d2) {
            let why = match c1 > c2 {
                true => format!("chapter {c1} before chapter {c2}"),
                false => format!("difficulty {d1} before {d2} in chapter {c1}"),
            };
            problems.push(format!(
                "the manifest lists {} before {} ({why}): list the exercises in the book's order, the easiest first within a chapter",
                a.id, b.id
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Manifest;

    /// A course in a temporary folder whose book has three chapters and
    /// whose manifest lists `(id, chapter, difficulty)` in that order.
    fn course(entries: &[(u32, &str, u8)]) -> (tempfile::TempDir, Course) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("chapters")).unwrap();
        std::fs::write(
            dir.path().join("chapters/SUMMARY.md"),
            "# Summary\n\n[Intro](intro.md)\n\n- [One](one.md)\n- [Two](two.md)\n- [Three](three.md)\n",
        )
        .unwrap();
        let mut text = String::from("format = 1\n");
        for (id, chapter, difficulty) in entries {
            text += &format!(
                "[[exercise]]\nid = {id}\nslug = \"s\"\ntitle = \"t\"\nchapter = \"{chapter}\"\ndifficulty = {difficulty}\npoints = 1\ntimeout_s = 1\nlib = \"l\"\nhints = [\"h\"]\n"
            );
        }
        let manifest: Manifest = toml::from_str(&text).unwrap();
        let course = Course {
            root: dir.path().to_path_buf(),
            tools: dir.path().to_path_buf(),
            manifest,
        };
        (dir, course)
    }

    #[test]
    fn the_manifest_follows_the_books_chapters_then_difficulty() {
        let (_dir, ok) = course(&[(105, "one.md", 1), (107, "two.md", 1), (104, "two.md", 3)]);
        assert!(out_of_order(&ok).is_empty());
        let (_dir, late) = course(&[(101, "three.md", 3), (105, "one.md", 1)]);
        let problems = out_of_order(&late);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("101 before 105 (chapter 3 before chapter 1)"),
            "{problems:?}"
        );
        let (_dir, harder) = course(&[(104, "two.md", 3), (107, "two.md", 1)]);
        assert!(out_of_order(&harder)[0].contains("difficulty 3 before 1 in chapter 2"));
        let (_dir, unnumbered) = course(&[(100, "intro.md", 1)]);
        assert!(out_of_order(&unnumbered)[0].contains("not a numbered chapter"));
    }
}
