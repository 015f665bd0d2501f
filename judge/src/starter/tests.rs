//! Tests of the starter (`judge reset`): the UTC stamp and how a `git status` listing
//! says what a reset writes and removes (the git side is tested in
//! `tests/cli/reset.rs`).

use super::*;

#[test]
fn stamps_are_utc_dates() {
    assert_eq!(utc_stamp(0), "19700101T000000Z");
    assert_eq!(utc_stamp(951_782_400), "20000229T000000Z");
    assert_eq!(utc_stamp(1_709_210_096), "20240229T123456Z");
    assert_eq!(utc_stamp(4_102_444_799), "20991231T235959Z");
}

#[test]
fn finds_what_differs_and_what_was_added_in_the_crate_only() {
    let listing = " M course/exercises/902-x/src/lib.rs\0\
                   \x20D course/exercises/902-x/Cargo.toml\0\
                   MM course/exercises/902-x/run.sh\0\
                   A  course/exercises/902-x/src/staged.rs\0\
                   ?? course/exercises/902-x/notes.md\0\
                   !! course/exercises/902-x/src/target/built\0\
                   D  course/exercises/902-x/src/moved.rs\0\
                   ?? course/exercises/902-x/src/moved.rs\0\
                   \x20M course/exercises/902-xy/src/lib.rs\0";
    let found = parse_status(listing, "course/exercises/902-x/");
    let paths = |paths: &[&str]| paths.iter().map(PathBuf::from).collect::<Vec<_>>();
    assert_eq!(
        found.write,
        paths(&["src/lib.rs", "Cargo.toml", "run.sh", "src/moved.rs"])
    );
    assert_eq!(
        found.remove,
        paths(&["src/staged.rs", "notes.md", "src/target/built"]),
        "a file the commit has is restored, not removed"
    );
    assert_eq!(parse_status("", "x/"), Changes::default());
}
