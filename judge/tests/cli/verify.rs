//! `judge verify`: the author gate on a small, proper course.

use crate::formats::read_json;
use crate::support::{Course, arg};
use std::fs;
use std::path::Path;

/// The fixture course cut down to a proper course: exercises 902 (a wrong
/// starter) and 904 (a `todo!()` starter), each with a statement, and a
/// known-wrong variant of 902.
fn proper_course(diagnosis: &str) -> Course {
    let course = Course::fixture();
    let root = &course.root;
    let manifest = fs::read_to_string(root.join("exercises/info.toml")).unwrap();
    let kept: Vec<&str> = manifest
        .split("[[exercise]]")
        .filter(|block| {
            !block.contains("id = ") || block.contains("id = 902") || block.contains("id = 904")
        })
        .collect();
    fs::write(root.join("exercises/info.toml"), kept.join("[[exercise]]")).unwrap();
    for dir in fs::read_dir(root.join("exercises"))
        .unwrap()
        .map(|e| e.unwrap().path())
    {
        let keep =
            dir.ends_with("902-wrong-answer") || dir.ends_with("904-panics") || dir.is_file();
        if !keep {
            fs::remove_dir_all(&dir).unwrap();
            fs::remove_dir_all(root.join("solutions").join(dir.file_name().unwrap())).unwrap();
        } else if dir.is_dir() {
            fs::write(dir.join("README.md"), "# The statement\n").unwrap();
        }
    }
    let variants = root.join("judge/variants/902");
    fs::create_dir_all(&variants).unwrap();
    let variant = format!(
        "//! mistake: subtracts instead of adding\n//! fails: adds_small_numbers, adds_zero\n//! says: {diagnosis}\n/// Adds, wrongly.\npub fn add(a: i32, b: i32) -> i32 {{\n    a - b\n}}\n"
    );
    fs::write(variants.join("subtracts.rs"), variant).unwrap();
    let recorded = course.judge(&["verify", "--record-starters"]);
    assert_eq!(
        recorded.stdout,
        "recorded the starters of 2 exercises in `exercises/starters.toml`: commit it with them\n",
        "{recorded:?}"
    );
    course
}

#[test]
fn a_starter_changed_since_it_was_recorded_is_reported() {
    let course = proper_course("subtracts");
    let krate = course.root.join("exercises/902-wrong-answer");
    fs::write(
        krate.join("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 { a }\n",
    )
    .unwrap();
    fs::write(krate.join("src/more.rs"), "\n").unwrap();
    fs::remove_file(krate.join("README.md")).unwrap();
    let out = course.judge(&["verify", "902"]);
    assert_eq!(out.code, 1, "{out:?}");
    let line = out
        .stdout
        .lines()
        .find(|l| l.contains("records"))
        .unwrap_or_default();
    assert_eq!(
        line,
        "✗ 902: the starter is not what `exercises/starters.toml` records (`src/lib.rs` changed, \
         `src/more.rs` is new, `README.md` is gone): if that change is meant, run `judge verify \
         --record-starters` and commit `exercises/starters.toml` with it",
        "{}",
        out.stdout
    );
}

#[test]
fn a_proper_course_is_in_order() {
    let course = proper_course("-1");
    let out = course.judge(&["verify"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    insta::assert_snapshot!(course.redact(&out.stdout));
}

/// The check's expectation names `add(2, 3): 5`; a variant that says only
/// that is not explained: the learner would read what was expected, not why.
#[test]
fn a_variant_whose_words_are_only_in_the_expectation_is_not_explained() {
    let course = proper_course("add(2, 3): 5");
    let out = course.judge(&["verify"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains(
            "the failing checks never say `add(2, 3): 5` in their diagnosis (what happened and why; the expectation does not count)"
        ),
        "{}",
        out.stdout
    );
}

#[test]
fn a_variant_without_its_diagnosis_is_reported() {
    let course = proper_course("banana");
    let out = course.judge(&["verify"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .contains("✗ 902: the variant `subtracts` (subtracts instead of adding) is caught"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("the failing checks never say `banana`"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_solved_starter_and_an_unlisted_folder_are_reported() {
    let course = proper_course("-1");
    let starter = course.root.join("exercises/902-wrong-answer/src/lib.rs");
    fs::write(
        &starter,
        "/// Adds.\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    )
    .unwrap();
    // Recorded as the starter: the author means it (and the gate catches it).
    assert_eq!(course.judge(&["verify", "--record-starters"]).code, 0);
    fs::create_dir_all(course.root.join("exercises/950-stray")).unwrap();
    let out = course.judge(&["verify"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .contains("`exercises/950-stray` is not in the manifest"),
        "{}",
        out.stdout
    );
    fs::remove_dir_all(course.root.join("exercises/950-stray")).unwrap();
    let out = course.judge(&["verify"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .contains("✗ 902: the untouched starter earns no point"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("it earns 10.0 of 10 points"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_missing_suite_names_its_mod_rs() {
    let course = proper_course("-1");
    let checks = course.root.join("judge/checks");
    fs::remove_dir_all(checks.join("ex904")).unwrap();
    fs::write(
        checks.join("ex904.rs"),
        "// a suite as one file, which is no suite\n",
    )
    .unwrap();
    let out = course.judge(&["verify"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        course.redact(&out.stdout).contains(
            "✗ 904: the check suite `[COURSE]/judge/checks/ex904/mod.rs` is missing; a suite is a folder whose `mod.rs` holds its `CHECKS`"
        ),
        "{}",
        out.stdout
    );
}

#[test]
fn named_exercises_are_the_only_ones_run() {
    let course = proper_course("banana");
    let out = course.judge(&["verify", "904"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("904:"), "{}", out.stdout);
    assert!(!out.stdout.contains("902:"), "{}", out.stdout);
    let out = course.judge(&["verify", "999"]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("`999`"), "{}", out.stderr);
}

/// `subtracts` as a patch of 902's solution instead of a whole file.
const SUBTRACTS_PATCH: &str = "//! mistake: subtracts instead of adding
//! fails: adds_small_numbers, adds_zero
//! says: -1
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -1,5 +1,5 @@
 //! The reference.
 /// Adds.
 pub fn add(a: i32, b: i32) -> i32 {
-    a + b
+    a - b
 }
";

/// [`proper_course`] with its variant written as a patch.
fn course_with_a_patch() -> Course {
    let course = proper_course("-1");
    let variants = course.root.join("judge/variants/902");
    fs::remove_file(variants.join("subtracts.rs")).unwrap();
    fs::write(variants.join("subtracts.patch"), SUBTRACTS_PATCH).unwrap();
    course
}

/// Rewrites 902's solution so that the patch's context no longer matches.
fn change_the_patched_lines(course: &Course) {
    fs::write(
        course.root.join("solutions/902-wrong-answer/src/lib.rs"),
        "//! The reference.\n/// Adds.\npub fn add(a: i32, b: i32) -> i32 {\n    b + a\n}\n",
    )
    .unwrap();
}

const CAUGHT: &str = "902: the variant `subtracts` (subtracts instead of adding) is caught";
const STALE: &str = "the variant `subtracts` no longer applies to `solutions/902-wrong-answer/src/lib.rs`: hunk 1 does not match; regenerate it with `diff -u`";

#[test]
fn a_patch_variant_is_applied_to_the_solution_and_caught() {
    let course = course_with_a_patch();
    verify_902(&course, &[], &[], 0, "✓");
}

#[test]
fn a_patch_that_no_longer_applies_is_reported() {
    let course = course_with_a_patch();
    change_the_patched_lines(&course);
    let stdout = verify_902(&course, &[], &[], 1, "✗");
    assert!(stdout.contains(STALE), "{stdout}");
}

#[test]
fn a_patch_variant_is_built_into_a_harness_that_verify_runs_without_cargo() {
    let course = course_with_a_patch();
    let bin = course.root.join("bin");
    let out = course.judge(&["build", "--out", arg(&bin)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(harness_status(&bin, "agent-902-variant-subtracts"), "built");
    let no_cargo = [("CARGO", Path::new("/nonexistent/cargo"))];
    verify_902(&course, &["--prebuilt", arg(&bin)], &no_cargo, 0, "✓");

    change_the_patched_lines(&course);
    let out = course.judge(&["build", "--out", arg(&bin)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains(STALE), "{}", out.stderr);
    assert_eq!(
        harness_status(&bin, "agent-902-variant-subtracts"),
        "missing"
    );
    assert!(!bin.join("agent-902-variant-subtracts").exists());
}

/// Runs `judge verify 902 ARGS…` with `env`, checks its exit code and the
/// mark (`✓` or `✗`) of the line of the variant, and returns its stdout.
fn verify_902(
    course: &Course,
    args: &[&str],
    env: &[(&str, &Path)],
    code: i32,
    mark: &str,
) -> String {
    let out = course.judge_with(&[&["verify", "902"], args].concat(), env);
    assert_eq!(out.code, code, "{}{}", out.stdout, out.stderr);
    let line = format!("{mark} {CAUGHT}");
    assert!(out.stdout.contains(&line), "{}", out.stdout);
    out.stdout
}

/// The status `index.json` in `bin` gives the harness `name`.
fn harness_status(bin: &Path, name: &str) -> String {
    let index = read_json(&bin.join("index.json"));
    let entry = index["harnesses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == name)
        .unwrap_or_else(|| panic!("`{name}` is in the index: {index}"));
    entry["status"].as_str().unwrap().to_string()
}
