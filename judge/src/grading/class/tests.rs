//! Tests of the gradebook and the class report, on a small document.

use super::*;

/// A check of the document: `(name, status, detail)`.
fn check(name: &str, status: &str, detail: Option<&str>) -> serde_json::Value {
    serde_json::json!({
        "name": name, "title": format!("the {name} check"), "section": "x.md#y",
        "status": status, "actual": "something else", "detail": detail,
    })
}

/// A class of four: two fail `fits` with causes that differ only in their
/// numbers, one with another cause, one does not compile; and a student
/// whose folder's name would be a formula.
fn class() -> Results {
    let exercise = |status: &str, score: f64, checks: Vec<serde_json::Value>| {
        serde_json::json!([{
            "id": 101, "slug": "alloc", "title": "An allocator", "chapter": "allocator.md",
            "status": status, "score": score, "max_score": 10, "checks": checks,
        }])
    };
    let submission = |name: &str, exercises: serde_json::Value| {
        let score = exercises[0]["score"].clone();
        serde_json::json!({
            "name": name, "complete": true, "score": score, "max_score": 10,
            "unknown_folders": [], "exercises": exercises,
        })
    };
    let fits = |detail: &str| {
        vec![
            check("rounds", "passed", None),
            check("fits", "failed", Some(detail)),
        ]
    };
    let document = serde_json::json!({
        "format": 1, "complete": true, "seed": 7,
        "submissions": [
            submission("ada", exercise("failed", 5.0, fits("block 4096 of 512 B: see x.md#y"))),
            submission("bob", exercise("failed", 5.0, fits("block 8192 of 1024 B: see x.md#y"))),
            submission("cy", exercise("failed", 2.5, fits("no stream recorded: see x.md#y"))),
            submission("=HYPERLINK(\"x\")", exercise("compile_error", 0.0, vec![])),
        ],
    });
    Results::parse(&document.to_string(), "class.json").unwrap()
}

#[test]
fn numbers_are_written_n_but_names_with_digits_are_kept() {
    assert_eq!(
        normalized("block 4096 at 0x7f3a of 1.5 KiB, sm_90 line 42:7"),
        "block N at N of N KiB, sm_90 line N:N"
    );
    assert_eq!(normalized("ex101 and h200"), "ex101 and h200");
}

#[test]
fn the_gradebook_has_a_row_per_student_and_defuses_formulas() {
    assert_eq!(
        gradebook(&class()),
        "student,101-alloc (of 10),total (of 10),complete\r\n\
         ada,5,5,true\r\n\
         bob,5,5,true\r\n\
         cy,2.5,2.5,true\r\n\
         \"'=HYPERLINK(\"\"x\"\")\",0,0,true\r\n"
    );
    assert_eq!(cell("-3"), "-3", "a negative number is a number");
    assert_eq!(cell("@me"), "'@me");
}

#[test]
fn the_report_groups_causes_that_differ_only_in_numbers() {
    let report = report(&class());
    let [exercise] = &report.exercises[..] else {
        panic!("{report:?}")
    };
    assert_eq!(exercise.mean_score, 3.13);
    let statuses: Vec<(&str, usize)> = exercise
        .statuses
        .iter()
        .map(|g| (g.what.as_str(), g.count))
        .collect();
    assert_eq!(statuses, [("failed", 3), ("compile_error", 1)]);
    let [fits] = &exercise.checks[..] else {
        panic!("only the failed check: {:?}", exercise.checks)
    };
    assert_eq!((fits.failed, fits.ran), (3, 3));
    assert_eq!(fits.causes[0].what, "block N of N B: see x.md#y");
    assert_eq!(fits.causes[0].students, ["ada", "bob"]);
    assert_eq!(
        fits.causes[0].example.as_deref(),
        Some("block 4096 of 512 B: see x.md#y"),
        "the first student's own words"
    );
    assert_eq!(fits.causes[1].students, ["cy"]);
    assert_eq!(
        fits.causes[1].example, None,
        "no number: the cause is the text"
    );
}

#[test]
fn the_markdown_names_each_cause_and_its_students() {
    let text = markdown(&report(&class()));
    for line in [
        "4 submissions, all graded, seed 7.",
        "| 101 An allocator | 3.13 of 10 | 0 | 3 | 1 |",
        "- compile error: =HYPERLINK(\"x\")",
        "### `fits`: 3 of 3 failed",
        "- **2 students** (ada, bob):",
        "  > block 4096 of 512 B: see x.md#y",
        "- **1 student** (cy):",
    ] {
        assert!(text.contains(line), "no `{line}` in:\n{text}");
    }
}

#[test]
fn a_document_of_another_kind_is_refused_by_name() {
    let err = Results::parse("{\"tests\": []}", "results/ada.json").unwrap_err();
    assert_eq!(
        err.to_string(),
        "`results/ada.json` is not the judge's JSON results (`judge grade --format json`)"
    );
    let err = Results::parse(
        "{\"format\": 2, \"complete\": true, \"seed\": 1, \"submissions\": []}",
        "new.json",
    )
    .unwrap_err();
    assert!(err.to_string().contains("format 2"), "{err}");
}
