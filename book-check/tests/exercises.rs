//! The exercises in the book: every chapter ends with its exercises, in the
//! manifest's order (the easiest first), each with its `judge run ID` and
//! `judge hint ID`; and every chapter section a check names (as the section
//! it explains, or in a "see …" of a failure) is a heading of that chapter.

use book_check::include::expand;
use book_check::links::references;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The manifest's exercises, in order: id, folder name, chapter.
fn exercises() -> Vec<(i64, String, String)> {
    let text = std::fs::read_to_string(repository().join("exercises/info.toml")).unwrap();
    let manifest: toml::Table = text.parse().expect("the manifest is TOML");
    manifest["exercise"]
        .as_array()
        .expect("[[exercise]] entries")
        .iter()
        .map(|e| {
            let id = e["id"].as_integer().unwrap();
            let slug = e["slug"].as_str().unwrap();
            (
                id,
                format!("{id:03}-{slug}"),
                e["chapter"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// What is wrong with the end of a chapter (`text`, as written) whose
/// exercises are `ids` (folders `dirs`), in the manifest's order.
fn ending_gaps(text: &str, exercises: &[(i64, String)]) -> Vec<String> {
    let mut gaps = Vec::new();
    let at = |what: &str| text.find(what);
    let statements: Vec<Option<usize>> = exercises
        .iter()
        .map(|(_, dir)| at(&format!("exercises/{dir}/README.md}}}}")))
        .collect();
    for ((id, _), place) in exercises.iter().zip(&statements) {
        if place.is_none() {
            gaps.push(format!("exercise {id}'s statement"));
        }
        for command in [format!("judge run {id}"), format!("judge hint {id}")] {
            if !text.contains(&command) {
                gaps.push(format!("the command `{command}`"));
            }
        }
    }
    let placed: Vec<usize> = statements.iter().flatten().copied().collect();
    if placed.windows(2).any(|w| w[0] > w[1]) {
        gaps.push("its exercises in the manifest's order (the easiest first)".into());
    }
    let last_answer = text.rfind("</details>");
    if let (Some(first), Some(answer)) = (placed.first(), last_answer)
        && *first < answer
    {
        gaps.push("its exercises after the self-test, at its end".into());
    }
    gaps
}

#[test]
fn every_chapter_ends_with_its_exercises_easiest_first() {
    let src = repository().join("chapters");
    let all = exercises();
    let chapters: BTreeSet<&String> = all.iter().map(|e| &e.2).collect();
    let mut missing = Vec::new();
    for chapter in chapters {
        let ours: Vec<(i64, String)> = all
            .iter()
            .filter(|e| &e.2 == chapter)
            .map(|e| (e.0, e.1.clone()))
            .collect();
        let text = std::fs::read_to_string(src.join(chapter)).unwrap();
        for gap in ending_gaps(&text, &ours) {
            missing.push(format!("`{chapter}` lacks {gap}"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn a_chapter_ending_out_of_order_is_caught() {
    let ours = [(7, "007-a".to_string()), (4, "004-b".to_string())];
    let good = "<details><summary>Q</summary>A</details>\n{{#include ../exercises/007-a/README.md}}\n`judge run 7` `judge hint 7`\n{{#include ../exercises/004-b/README.md}}\n`judge run 4` `judge hint 4`";
    assert!(ending_gaps(good, &ours).is_empty());
    let swapped = good
        .replace("007-a/README", "TMP")
        .replace("004-b/README", "007-a/README")
        .replace("TMP", "004-b/README");
    assert_eq!(ending_gaps(&swapped, &ours).len(), 1);
    let no_hint = good.replace("`judge hint 4`", "");
    assert!(ending_gaps(&no_hint, &ours)[0].contains("judge hint 4"));
    let early = format!("{{{{#include ../exercises/007-a/README.md}}}}\n{good}");
    assert!(
        ending_gaps(&early, &ours)
            .iter()
            .any(|g| g.contains("after the self-test"))
    );
}

/// The `chapter.md#anchor` references in `text`.
fn sections(text: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices(".md#") {
        let before: String = text[..at]
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-' || *c == '/')
            .collect();
        let page: String = before.chars().rev().collect();
        let anchor: String = text[at + 4..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        if !page.is_empty() && !anchor.is_empty() {
            found.push((format!("{page}.md"), anchor));
        }
    }
    found
}

#[test]
fn sections_are_found_in_a_checks_text() {
    let text = r#"check!(a, "t", "cpu-and-gpu.md#timing-gpu-work", 5); "see appendix/glossary.md#throughput; or x""#;
    assert_eq!(
        sections(text),
        [
            ("cpu-and-gpu.md".to_string(), "timing-gpu-work".to_string()),
            ("appendix/glossary.md".to_string(), "throughput".to_string()),
        ]
    );
}

#[test]
fn every_section_a_check_names_is_a_heading_of_its_chapter() {
    let src = repository().join("chapters");
    let checks = repository().join("judge/checks");
    let (mut wrong, mut seen) = (BTreeSet::new(), 0);
    for entry in walkdir::WalkDir::new(&checks).into_iter().flatten() {
        if entry.path().extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for (page, anchor) in sections(&text) {
            seen += 1;
            let file = src.join(&page);
            let Ok(markdown) = std::fs::read_to_string(&file) else {
                wrong.insert(format!("{page}#{anchor}: no chapter `{page}`"));
                continue;
            };
            let expanded = expand(&markdown, file.parent().unwrap(), &mut Vec::new());
            if !references(&expanded).ids.contains(&anchor) {
                let shown = entry.path().strip_prefix(&checks).unwrap().display();
                wrong.insert(format!("{page}#{anchor} (in `{shown}`): no such heading"));
            }
        }
    }
    assert!(seen >= 50, "only {seen} sections found in the checks");
    assert!(
        wrong.is_empty(),
        "{}",
        wrong.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// The manifest's exercises with their difficulty: id, chapter, stars.
fn difficulties() -> Vec<(i64, String, usize)> {
    let text = std::fs::read_to_string(repository().join("exercises/info.toml")).unwrap();
    let manifest: toml::Table = text.parse().expect("the manifest is TOML");
    manifest["exercise"]
        .as_array()
        .expect("[[exercise]] entries")
        .iter()
        .map(|e| {
            (
                e["id"].as_integer().unwrap(),
                e["chapter"].as_str().unwrap().to_string(),
                e["difficulty"].as_integer().unwrap() as usize,
            )
        })
        .collect()
}

/// The exercises of each chapter row of setup.md's table (`| N. [title](chapter.md) | 105 … ★, … |`):
/// the chapter and its (id, stars), as written.
fn setup_table(text: &str) -> Vec<(String, Vec<(i64, usize)>)> {
    text.lines()
        .filter(|l| l.starts_with("| ") && l.contains("](") && l.contains(".md) |"))
        .filter_map(|line| {
            let chapter = line.split("](").nth(1)?.split(')').next()?.to_string();
            let cell = line.rsplit('|').nth(1)?;
            let entries = cell
                .split(',')
                .filter_map(|entry| {
                    let entry = entry.trim();
                    let id = entry.get(..3)?.parse().ok()?;
                    Some((id, entry.matches('★').count()))
                })
                .collect();
            Some((chapter, entries))
        })
        .collect()
}

/// What setup.md's table of exercises says that the manifest does not.
fn table_gaps(text: &str, manifest: &[(i64, String, usize)]) -> Vec<String> {
    let table = setup_table(text);
    let mut chapters: Vec<&str> = manifest.iter().map(|(_, c, _)| c.as_str()).collect();
    chapters.dedup();
    let mut gaps = Vec::new();
    for chapter in chapters {
        let want: Vec<(i64, usize)> = manifest
            .iter()
            .filter(|(_, c, _)| c == chapter)
            .map(|(id, _, d)| (*id, *d))
            .collect();
        match table.iter().find(|(c, _)| c == chapter) {
            None => gaps.push(format!("no row for `{chapter}`")),
            Some((_, got)) if *got != want => gaps.push(format!(
                "the row of `{chapter}` lists {got:?} (id, stars); the manifest has {want:?}"
            )),
            Some(_) => {}
        }
    }
    gaps
}

#[test]
fn the_setup_pages_table_lists_every_exercise_with_its_stars() {
    let text = std::fs::read_to_string(repository().join("chapters/setup.md")).unwrap();
    let gaps = table_gaps(&text, &difficulties());
    assert!(
        gaps.is_empty(),
        "setup.md's table of exercises is not the manifest's: {}; write it again from `exercises/info.toml`",
        gaps.join("; ")
    );
}

#[test]
fn a_setup_table_missing_an_exercise_or_its_stars_is_caught() {
    let manifest = vec![
        (105, "cpu-and-gpu.md".to_string(), 1),
        (112, "cpu-and-gpu.md".to_string(), 2),
    ];
    let whole = "| 1. [CPU and GPU](cpu-and-gpu.md) | 105 time it ★, 112 bound ★★ |\n";
    assert!(table_gaps(whole, &manifest).is_empty());
    let short = "| 1. [CPU and GPU](cpu-and-gpu.md) | 105 time it ★ |\n";
    assert_eq!(table_gaps(short, &manifest).len(), 1);
    let stars = "| 1. [CPU and GPU](cpu-and-gpu.md) | 105 time it ★★, 112 bound ★★ |\n";
    assert_eq!(table_gaps(stars, &manifest).len(), 1);
    assert_eq!(table_gaps("", &manifest), ["no row for `cpu-and-gpu.md`"]);
}
