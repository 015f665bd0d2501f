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

/// The README is read on GitHub, outside the book: its measured figures
/// (what the first run costs) are blocks that mirror their measurement
/// files, never retyped.
#[test]
fn the_readme_shows_its_measurements_as_measured() {
    let root = repository();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.contains("<!-- mirrors benches/fresh-clone/after.txt -->"),
        "the README lost its first-run figures"
    );
    let problems = book_check::include::mirrored(&readme, &root);
    assert!(problems.is_empty(), "README.md: {problems:#?}");
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
fn pasted_rust_in_included_markdown_is_reported() {
    assert_one(
        "pasted-rust-in-include",
        "chapter.md",
        "in the included `../notes/README.md`, line 9: a `rust` code block holds pasted code (`let sketch = pasted();`)",
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

#[test]
fn a_measured_figure_its_file_does_not_hold_is_reported() {
    assert_one(
        "wrong-measured-figure",
        "chapter.md",
        "line 5: the figure `886 µs` is not in `measurements/launch.txt`",
    );
}

/// Every measurement file was measured after the last change to the code
/// it measures (`book_check::provenance`), but those still on
/// `NOT_YET_REMEASURED`.
#[test]
fn every_measurement_is_fresh() {
    let repo = repository();
    let src = book_check::source_dir(&repo).unwrap();
    let problems = book_check::provenance::check(&repo, &src.join("measurements"));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The files `benches/remeasure` writes: the third word of each line of
/// its `PROGRAMS` list.
fn remeasured_files(script: &str) -> Vec<String> {
    let Some(start) = script.find("PROGRAMS='") else {
        return Vec::new();
    };
    let list = &script[start + "PROGRAMS='".len()..];
    let list = &list[..list.find('\'').unwrap_or(list.len())];
    let mut files: Vec<String> = list
        .lines()
        .filter_map(|line| line.split_whitespace().nth(2))
        .map(String::from)
        .collect();
    files.sort();
    files
}

/// `benches/remeasure` measures every measurement file of the Rust
/// programs, as `book_check::provenance::MEASURED` lists them, and no other.
#[test]
fn remeasure_writes_every_rust_measurement_file() {
    use book_check::provenance::{MEASURED, On};
    let script = std::fs::read_to_string(repository().join("benches/remeasure")).unwrap();
    let mut rust: Vec<String> = MEASURED
        .iter()
        .filter(|m| m.on != On::Python)
        .map(|m| m.file.to_string())
        .collect();
    rust.sort();
    assert_eq!(remeasured_files(&script), rust);
}

#[test]
fn the_files_of_remeasure_are_read_from_its_list() {
    let script = "x\nPROGRAMS='\ngpu  tour  gpu-tour.txt\nb  alloc  alloc.txt  arg\n'\nrun() {}\n";
    assert_eq!(remeasured_files(script), ["alloc.txt", "gpu-tour.txt"]);
    assert!(remeasured_files("no list").is_empty());
}

/// The chapter's text as written, if the chapter exists.
fn chapter_text(src: &Path, chapter: &str) -> Option<String> {
    std::fs::read_to_string(src.join(chapter)).ok()
}

/// What a chapter (`text`, as written) that teaches exercise `id` (folder `dir`) lacks.
fn chapter_gaps(text: &str, id: i64, dir: &str) -> Vec<String> {
    let mut gaps = Vec::new();
    if !text.contains(&format!("judge run {id}")) && !text.contains(&format!("judge -- run {id}")) {
        gaps.push(format!("the command `judge run {id}`"));
    }
    let statement = format!("exercises/{dir}/README.md");
    if !text.contains(&format!("{statement}}}}}")) {
        gaps.push(format!("the statement (an include of `{statement}`)"));
    }
    if !(text.contains("<details>") && text.contains("<summary>")) {
        gaps.push("self-test questions with folded answers (`<details><summary>`)".into());
    }
    gaps
}

#[test]
fn every_exercise_ends_its_chapter_with_its_statement_and_judge_command() {
    let repo = repository();
    let src = book_check::source_dir(&repo).unwrap();
    let manifest: toml::Table = std::fs::read_to_string(repo.join("exercises/info.toml"))
        .expect("exercises/info.toml")
        .parse()
        .expect("the manifest is TOML");
    let exercises = manifest["exercise"]
        .as_array()
        .expect("[[exercise]] entries");
    let mut missing = Vec::new();
    for exercise in exercises {
        let id = exercise["id"].as_integer().expect("an id");
        let slug = exercise["slug"].as_str().expect("a slug");
        let chapter = exercise["chapter"].as_str().expect("a chapter");
        // A chapter not written yet is mdbook build's to report (SUMMARY.md lists it).
        let Some(text) = chapter_text(&src, chapter) else {
            continue;
        };
        for gap in chapter_gaps(&text, id, &format!("{id:03}-{slug}")) {
            missing.push(format!("`{chapter}` (exercise {id}) lacks {gap}"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn a_chapter_without_its_judge_command_or_self_test_is_caught() {
    let whole = "## Self-test\n<details><summary>Q</summary>A</details>\n{{#include ../exercises/101-x/README.md}}\n`judge run 101`";
    assert!(chapter_gaps(whole, 101, "101-x").is_empty());
    let gaps = chapter_gaps("no statement, no command, no answers", 101, "101-x");
    assert_eq!(gaps.len(), 3, "{gaps:?}");
    assert!(gaps[0].contains("judge run 101"));
    assert!(gaps[1].contains("exercises/101-x/README.md"));
    assert!(gaps[2].contains("<details>"));
}

/// The files of `dir` (by name) that no text of `texts` mentions.
fn unmentioned(dir: &Path, texts: &[String]) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names.retain(|name| !texts.iter().any(|t| t.contains(&format!("/{name}"))));
    names
}

#[test]
fn every_measurement_is_in_the_appendix_and_every_figure_on_a_page() {
    let repo = repository();
    let src = book_check::source_dir(&repo).unwrap();
    let appendix = std::fs::read_to_string(src.join("appendix/measurements.md"))
        .expect("the measurements appendix");
    let missing = unmentioned(&src.join("measurements"), std::slice::from_ref(&appendix));
    assert!(
        missing.is_empty(),
        "`appendix/measurements.md` does not include {missing:?}: add a block for each, like the one of `alloc.txt`"
    );
    let pages: Vec<String> = book_check::markdown_files(&src)
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .collect();
    let orphans = unmentioned(&src.join("figures"), &pages);
    assert!(
        orphans.is_empty(),
        "figures that no page shows: {orphans:?}; show them or remove them from `figures::all()`"
    );
}

#[test]
fn an_unmentioned_file_is_caught() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("unmentioned");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("shown.txt"), "").unwrap();
    std::fs::write(dir.join("forgotten.txt"), "").unwrap();
    let text = vec!["{{#include ../measurements/shown.txt}}".to_string()];
    assert_eq!(unmentioned(&dir, &text), ["forgotten.txt"]);
}
