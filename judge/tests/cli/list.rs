//! `judge list` and `judge hint`.

use crate::support::Course;

#[test]
fn list_shows_every_exercise_and_the_progress() {
    let course = Course::fixture();
    std::fs::write(
        course.root.join(".judge-progress"),
        "901 passed\n902 failing\n999 passed\nnonsense line\n",
    )
    .unwrap();
    let out = course.judge(&["list"]);
    assert_eq!(out.code, 0);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn hints_come_in_levels() {
    let course = Course::fixture();
    let first = course.judge(&["hint", "901"]);
    assert_eq!(first.code, 0);
    assert_eq!(
        first.stdout,
        "hint 1 of 2: add the numbers\n(more detail: `judge hint 901 --level 2`)\n"
    );
    let both = course.judge(&["hint", "901", "--level", "2"]);
    assert_eq!(
        both.stdout,
        "hint 1 of 2: add the numbers\nhint 2 of 2: use `+`\n"
    );
    let too_far = course.judge(&["hint", "901", "--level", "3"]);
    assert_eq!(too_far.code, 2, "a hint level that is not one is bad usage");
    assert!(
        too_far.stderr.contains("hints at levels 1 to 2"),
        "{}",
        too_far.stderr
    );
}

#[test]
fn bad_usage_exits_with_2() {
    let course = Course::fixture();
    assert_eq!(course.judge(&["frobnicate"]).code, 2);
    assert_eq!(course.judge(&["run"]).code, 2);
}
