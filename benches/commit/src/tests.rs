//! The commit of a repository made for each test, clean and dirty.

use super::{COMMIT, describe, watched};
use std::path::Path;
use std::process::Command;

/// Runs git in `dir`, as a user of its own, and returns its output.
fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=test", "-c", "user.email=test@example.com"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

/// A repository with one commit of `gpu/src/lib.rs` and `README.md`.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    std::fs::create_dir_all(dir.path().join("gpu/src")).unwrap();
    std::fs::write(dir.path().join("gpu/src/lib.rs"), "// v1\n").unwrap();
    std::fs::write(dir.path().join("README.md"), "v1\n").unwrap();
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "first"]);
    dir
}

#[test]
fn a_clean_checkout_is_its_short_commit() {
    let repo = repository();
    let head = git(repo.path(), &["rev-parse", "HEAD"]);
    let described = describe(repo.path()).unwrap();
    assert_eq!(described, head[..12]);
}

#[test]
fn a_change_to_the_measured_code_is_dirty_and_one_elsewhere_is_not() {
    let repo = repository();
    let head = git(repo.path(), &["rev-parse", "--short=12", "HEAD"]);
    std::fs::write(repo.path().join("README.md"), "v2\n").unwrap();
    std::fs::write(repo.path().join("notes.txt"), "untracked\n").unwrap();
    assert_eq!(
        describe(repo.path()).unwrap(),
        head,
        "outside the measured code"
    );
    std::fs::write(repo.path().join("gpu/src/lib.rs"), "// v2\n").unwrap();
    assert_eq!(describe(repo.path()).unwrap(), format!("{head}-dirty"));
    git(repo.path(), &["checkout", "-q", "gpu/src/lib.rs"]);
    assert_eq!(describe(repo.path()).unwrap(), head);
    std::fs::create_dir_all(repo.path().join("benches/examples")).unwrap();
    std::fs::write(repo.path().join("benches/examples/new.rs"), "").unwrap();
    assert_eq!(
        describe(repo.path()).unwrap(),
        format!("{head}-dirty"),
        "an untracked file of the measured code"
    );
}

#[test]
fn a_folder_outside_git_has_no_commit() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(describe(dir.path()), None);
}

#[test]
fn the_watched_files_are_heads_branch_index_and_the_measured_code() {
    let repo = repository();
    let root = repo.path();
    let watched = watched(root);
    for expected in [".git/HEAD", ".git/index", ".git/refs/heads/main", "gpu"] {
        assert!(
            watched.iter().any(|p| p.ends_with(expected)),
            "`{expected}` is not watched: {watched:?}"
        );
    }
    assert!(watched.iter().all(|p| p.exists()), "{watched:?}");
    assert!(
        !watched.iter().any(|p| p.ends_with("benches")),
        "`benches` does not exist in this repository: {watched:?}"
    );
}

#[test]
fn the_built_commit_is_this_checkouts() {
    let expected = match option_env!("WORKBOOK_COMMIT") {
        Some(commit) if !commit.trim().is_empty() => commit.trim().to_string(),
        _ => describe(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
            .unwrap_or_else(|| super::UNKNOWN.to_string()),
    };
    assert_eq!(COMMIT, expected);
}
