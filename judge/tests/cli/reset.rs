//! `judge reset`: the starter comes back as the course ships it, whatever
//! the learner committed, and nothing is lost.

use crate::support::Course;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `git -C ROOT ARGS` with a fixed identity, and checks it worked.
fn git(root: &Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args([
            "-c",
            "user.name=judge tests",
            "-c",
            "user.email=tests@example.com",
        ])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Makes the course a git repository whose one commit holds `paths`.
pub(crate) fn commit(course: &Course, paths: &[&str]) {
    git(&course.root, &["init", "-q"]);
    git(&course.root, &[&["add", "--"][..], paths].concat());
    git(&course.root, &["commit", "-q", "-m", "the course"]);
}

/// The backups made so far.
fn backups(course: &Course) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(course.root.join(".judge-backups")) else {
        return Vec::new();
    };
    entries.map(|e| e.unwrap().path()).collect()
}

/// `judge reset` with git kept from looking above the course folder.
fn reset(course: &Course, id: &str) -> crate::support::Output {
    let above = course.root.parent().unwrap();
    course.judge_with(&["reset", id], &[("GIT_CEILING_DIRECTORIES", above)])
}

#[test]
fn reset_restores_the_starter_and_keeps_a_backup() {
    let course = Course::fixture();
    commit(&course, &["."]);
    let krate = course.root.join("exercises/902-wrong-answer");
    let starter = fs::read_to_string(krate.join("src/lib.rs")).unwrap();
    fs::write(krate.join("src/lib.rs"), "// my attempt\n").unwrap();
    fs::write(krate.join("notes.md"), "my notes\n").unwrap();
    fs::create_dir_all(krate.join("target/debug")).unwrap();
    fs::write(krate.join("target/debug/built"), "").unwrap();

    let out = reset(&course, "902");
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        fs::read_to_string(krate.join("src/lib.rs")).unwrap(),
        starter
    );
    assert!(!krate.join("notes.md").exists(), "an added file is removed");
    assert!(
        krate.join("target/debug/built").exists(),
        "`target/` is left alone"
    );

    let [backup] = &backups(&course)[..] else {
        panic!("one backup: {:?}", backups(&course))
    };
    let name = backup.file_name().unwrap().to_string_lossy();
    assert!(
        name.starts_with("902-wrong-answer-") && name.ends_with('Z'),
        "{name}"
    );
    let text = |path: &str| fs::read_to_string(backup.join(path)).unwrap();
    assert_eq!(text("src/lib.rs"), "// my attempt\n");
    assert_eq!(text("notes.md"), "my notes\n");
    assert!(backup.join("Cargo.toml").is_file());
    assert!(
        !backup.join("target").exists(),
        "`target/` is not backed up"
    );
    let backup = backup.display().to_string();
    insta::assert_snapshot!(course.redact(&out.stdout.replace(&backup, "[BACKUP]")));

    let again = reset(&course, "902");
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(
        again.stdout,
        "exercise 902 already has its starter code: nothing to do\n"
    );
    assert_eq!(backups(&course).len(), 1, "no backup when nothing changes");
}

#[test]
fn reset_needs_a_git_checkout() {
    let course = Course::fixture();
    let lib = course.root.join("exercises/902-wrong-answer/src/lib.rs");
    fs::write(&lib, "// my attempt\n").unwrap();
    let out = reset(&course, "902");
    assert_eq!(out.code, 3, "{out:?}");
    let error = course.redact(&out.stderr);
    assert!(
        error.starts_with(
            "error: `[COURSE]` is not a git checkout (or git cannot read it), so the judge cannot tell what the starter code was"
        ),
        "{error}"
    );
    assert_eq!(
        fs::read_to_string(&lib).unwrap(),
        "// my attempt\n",
        "nothing changed"
    );
    assert!(backups(&course).is_empty());
}

#[test]
fn reset_after_committing_the_solution_restores_the_shipped_starter() {
    let course = Course::fixture();
    commit(&course, &["."]);
    let krate = course.root.join("exercises/902-wrong-answer");
    let starter = fs::read_to_string(krate.join("src/lib.rs")).unwrap();
    let solution = course.root.join("solutions/902-wrong-answer/src/lib.rs");
    fs::copy(&solution, krate.join("src/lib.rs")).unwrap();
    fs::write(krate.join("src/notes.rs"), "// mine\n").unwrap();
    git(&course.root, &["add", "--", "."]);
    git(&course.root, &["commit", "-q", "-m", "my solution"]);

    let out = reset(&course, "902");
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        fs::read_to_string(krate.join("src/lib.rs")).unwrap(),
        starter,
        "the starter as shipped, not the last commit"
    );
    assert!(!krate.join("src/notes.rs").exists());
    let [backup] = &backups(&course)[..] else {
        panic!("one backup: {:?}", backups(&course))
    };
    assert_eq!(
        fs::read_to_string(backup.join("src/lib.rs")).unwrap(),
        fs::read_to_string(&solution).unwrap(),
        "the backup has the committed solution"
    );
    let undo = format!(
        "to undo the reset: `cp -a {}/. {}/` puts your files back",
        backup.display(),
        krate.display()
    );
    assert!(out.stdout.lines().any(|l| l == undo), "{}", out.stdout);
    let status = Command::new("git")
        .arg("-C")
        .arg(&course.root)
        .args(["status", "--porcelain", "--", "exercises/902-wrong-answer"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&status.stdout),
        " M exercises/902-wrong-answer/src/lib.rs\n D exercises/902-wrong-answer/src/notes.rs\n",
        "git's index and history are the learner's: the reset is a change to commit"
    );
}

#[test]
fn reset_says_when_git_lacks_the_starters_files() {
    let course = Course::fixture();
    commit(&course, &["exercises/info.toml"]);
    let lib = course.root.join("exercises/902-wrong-answer/src/lib.rs");
    fs::write(&lib, "// my attempt\n").unwrap();
    let out = reset(&course, "902");
    assert_eq!(out.code, 3, "{out:?}");
    let error = course.redact(&out.stderr);
    assert!(
        error.starts_with("error: git does not have the starter's `Cargo.toml` (blob "),
        "{error}"
    );
    assert!(error.contains("nothing was changed"), "{error}");
    assert_eq!(fs::read_to_string(&lib).unwrap(), "// my attempt\n");
    assert!(backups(&course).is_empty());
}

#[test]
fn reset_without_the_record_of_the_starters_changes_nothing() {
    let course = Course::fixture();
    commit(&course, &["."]);
    fs::remove_file(course.root.join("exercises/starters.toml")).unwrap();
    let lib = course.root.join("exercises/902-wrong-answer/src/lib.rs");
    fs::write(&lib, "// my attempt\n").unwrap();
    let out = reset(&course, "902");
    assert_eq!(out.code, 3, "{out:?}");
    assert!(
        out.stderr
            .starts_with("error: `exercises/starters.toml` is missing, so the judge cannot tell what the starter code was; nothing was changed"),
        "{}",
        out.stderr
    );
    assert_eq!(fs::read_to_string(&lib).unwrap(), "// my attempt\n");
    assert!(backups(&course).is_empty());
}

#[test]
fn when_the_backup_fails_nothing_changes() {
    let course = Course::fixture();
    commit(&course, &["."]);
    fs::write(course.root.join(".judge-backups"), "in the way").unwrap();
    let lib = course.root.join("exercises/902-wrong-answer/src/lib.rs");
    fs::write(&lib, "// my attempt\n").unwrap();
    let out = reset(&course, "902");
    assert_eq!(out.code, 3, "{out:?}");
    assert!(
        course
            .redact(&out.stderr)
            .contains("cannot create `[COURSE]/.judge-backups`"),
        "{}",
        out.stderr
    );
    assert_eq!(
        fs::read_to_string(&lib).unwrap(),
        "// my attempt\n",
        "nothing changed"
    );
}
