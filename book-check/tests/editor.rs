//! The editor setting that the setup chapter describes:
//! `.vscode/settings.json` links the workspace and every exercise crate for
//! rust-analyzer (`rust-analyzer.linkedProjects`), since `exercises/` is
//! outside the workspace. A new exercise cannot be forgotten there, and the
//! check is shown to fail on a list that misses one.

use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The manifests rust-analyzer must see: the workspace's and every
/// `exercises/*/Cargo.toml`, relative to the repository.
fn manifests(repo: &Path) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(repo.join("exercises"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("Cargo.toml").is_file())
        .map(|e| format!("exercises/{}/Cargo.toml", e.file_name().to_string_lossy()))
        .collect();
    found.sort();
    found.insert(0, "Cargo.toml".into());
    found
}

/// The manifests of `wanted` that `settings` (the JSON text) does not link,
/// and the linked ones that are not in `wanted`.
fn linked_projects_problems(settings: &str, wanted: &[String]) -> Vec<String> {
    let json: serde_json::Value = match serde_json::from_str(settings) {
        Ok(json) => json,
        Err(e) => return vec![format!("not JSON: {e}")],
    };
    let Some(linked) = json["rust-analyzer.linkedProjects"].as_array() else {
        return vec!["no `rust-analyzer.linkedProjects` list".into()];
    };
    let linked: Vec<&str> = linked.iter().filter_map(|p| p.as_str()).collect();
    let missing = wanted
        .iter()
        .filter(|w| !linked.contains(&w.as_str()))
        .map(|w| format!("`{w}` is not linked"));
    let stale = linked
        .iter()
        .filter(|l| !wanted.iter().any(|w| w == *l))
        .map(|l| format!("`{l}` is linked but is no crate of the course"));
    missing.chain(stale).collect()
}

#[test]
fn every_exercise_crate_is_linked_for_rust_analyzer() {
    let repo = repository();
    let wanted = manifests(&repo);
    assert!(
        wanted.len() >= 5,
        "the exercise crates were not found: {wanted:?}"
    );
    let settings = std::fs::read_to_string(repo.join(".vscode/settings.json")).unwrap();
    let problems = linked_projects_problems(&settings, &wanted);
    assert!(
        problems.is_empty(),
        "`.vscode/settings.json`: {problems:?}; list the workspace's `Cargo.toml` and every `exercises/*/Cargo.toml` in `rust-analyzer.linkedProjects`"
    );
}

#[test]
fn the_linked_projects_check_fails_on_a_list_that_misses_a_crate() {
    let wanted = [
        "Cargo.toml",
        "exercises/101-x/Cargo.toml",
        "exercises/102-y/Cargo.toml",
    ]
    .map(String::from);
    let settings = r#"{"rust-analyzer.linkedProjects": ["Cargo.toml", "exercises/101-x/Cargo.toml", "exercises/999-gone/Cargo.toml"]}"#;
    assert_eq!(
        linked_projects_problems(settings, &wanted),
        [
            "`exercises/102-y/Cargo.toml` is not linked",
            "`exercises/999-gone/Cargo.toml` is linked but is no crate of the course",
        ]
    );
    assert_eq!(linked_projects_problems("{}", &wanted).len(), 1);
    assert_eq!(linked_projects_problems("not json", &wanted).len(), 1);
}
