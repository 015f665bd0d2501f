//! The book's sources: includes, anchors, Rust samples, links and images.
//!
//! `the_book_is_sound` checks the real book; the fixtures under
//! `tests/fixtures/` are small books with one fault each, and each must be
//! reported, so that none of the checks can pass by checking nothing.

use book_check::{Problem, check_book};
use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fixture(name: &str) -> Vec<Problem> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    check_book(&root).unwrap_or_else(|e| panic!("fixture `{name}`: {e}"))
}

/// Asserts that the fixture has exactly one problem, in `file`, saying `says`.
fn assert_one(name: &str, file: &str, says: &str) {
    let problems = fixture(name);
    assert_eq!(problems.len(), 1, "fixture `{name}`: {problems:#?}");
    assert_eq!(problems[0].file, Path::new(file), "fixture `{name}`");
    assert!(
        problems[0].message.contains(says),
        "fixture `{name}`: expected a problem saying `{says}`, got: {}",
        problems[0].message
    );
}

#[test]
fn the_book_is_sound() {
    let problems =
        check_book(&repository()).expect("the book's `book.toml` and sources are readable");
    let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert!(
        list.is_empty(),
        "the book has {} problems:\n{}",
        list.len(),
        list.join("\n")
    );
}

#[test]
fn the_sound_fixture_has_no_problems() {
    let problems = fixture("sound");
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn an_include_of_a_missing_file_is_reported() {
    assert_one(
        "missing-include-file",
        "chapter.md",
        "the file `../code/gone.rs` does not exist",
    );
}

#[test]
fn an_include_of_a_missing_anchor_is_reported() {
    assert_one("missing-anchor", "chapter.md", "has no anchor `mian`");
}

#[test]
fn an_anchor_that_never_closes_is_reported() {
    assert_one("unclosed-anchor", "chapter.md", "never closes");
}

#[test]
fn pasted_rust_is_reported() {
    assert_one(
        "pasted-rust",
        "chapter.md",
        "holds pasted code (`fn main() {}`)",
    );
}

#[test]
fn a_link_to_a_missing_file_is_reported() {
    assert_one(
        "missing-link-file",
        "chapter.md",
        "there is no file `other.md`",
    );
}

#[test]
fn a_link_to_a_missing_heading_is_reported() {
    assert_one(
        "missing-heading",
        "chapter.md",
        "`second.md` has no heading or id `the-rules`",
    );
}

#[test]
fn a_link_to_a_missing_heading_of_the_same_page_is_reported() {
    assert_one(
        "missing-local-heading",
        "chapter.md",
        "this page has no heading or id `later`",
    );
}

#[test]
fn a_link_outside_the_book_is_reported() {
    assert_one(
        "link-outside",
        "chapter.md",
        "points outside the book's source folder",
    );
}

#[test]
fn a_missing_image_is_reported() {
    assert_one("missing-image", "chapter.md", "image `figures/gone.svg`");
}

#[test]
fn a_broken_link_in_included_text_is_reported() {
    assert_one(
        "broken-link-in-include",
        "chapter.md",
        "there is no file `nowhere.md`",
    );
}
