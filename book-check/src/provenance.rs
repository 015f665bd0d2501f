//! Whether each measurement file is fresh: measured at a commit after which
//! nothing changed the code it measures.
//!
//! Every program whose output is a measurement file of the book starts it
//! with a header (`gpu::MeasurementHeader`; the PyTorch scripts print their
//! own), whose `commit:` line is the commit the program was built from
//! (`workbook-commit`). [`MEASURED`] names, for each file, the code that
//! produced its figures: the example, the benches' modules and reference
//! solutions it runs and, for the Rust programs, the runtime ([`RUNTIME`]).
//! [`check_file`] asks git whether a commit after the file's touched that
//! code:
//!
//! * no `commit:` line: an error that says how to measure the file again;
//! * a commit git does not know, or that is not in `HEAD`'s history (a
//!   rebased branch): an error naming it (in a shallow clone, one that says
//!   to fetch the history);
//! * `git log <commit>..HEAD -- <code>` not empty: stale, with the commits
//!   that changed the code;
//! * a `-dirty` commit (built with uncommitted changes to the measured code)
//!   counts as that commit;
//! * a commit of [`UNMEASURED`] (it changed the runtime's files, not what a
//!   measurement runs: each says why) does not make a file stale.
//!
//! [`check`] runs it over the book's measurements folder, and holds the
//! table to the folder: a file without an entry, an entry without a file and
//! a path of the table that no longer exists are errors too. The files
//! measured before the header had a `commit:` line are listed in
//! [`NOT_YET_REMEASURED`], which is skipped until they are measured again.

mod table;

pub use table::{MEASURED, Measured, NOT_YET_REMEASURED, On, RUNTIME, UNMEASURED, Unmeasured};

use std::path::Path;
use std::process::Command;

/// The value of `key` in the header of a measurement file: its leading
/// `key: value` lines (a key of lowercase letters and `_`).
pub fn header_value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .map_while(|line| {
            let (k, v) = line.split_once(':')?;
            let is_key = !k.is_empty() && k.chars().all(|c| c.is_ascii_lowercase() || c == '_');
            is_key.then_some((k, v.trim()))
        })
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

/// What to run to measure a file again (its text `text`), for an error
/// message: `benches/remeasure` for the Rust programs, else the file's own
/// command (the PyTorch scripts).
fn how_to_measure(text: &str) -> String {
    match header_value(text, "command") {
        Some(command) if command.starts_with("cargo ") => {
            format!("`benches/remeasure` (or `{command}`) on the GPU machine")
        }
        Some(command) => format!("`{command}` on the GPU machine"),
        None => "`benches/remeasure` on the GPU machine".to_string(),
    }
}

/// Runs git in `repo`; its output, or `None` when it fails.
fn git(repo: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(repo)
        .arg("--no-optional-locks")
        .args(args)
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// Checks one measurement file (`path`, shown as `name`) of the repository
/// `repo` against the history of `code` (git pathspecs): `Ok` when it was
/// measured at a commit of `HEAD`'s history after which no commit touched
/// that code; else what is wrong and what to do.
pub fn check_file(repo: &Path, name: &str, path: &Path, code: &[&str]) -> Result<(), String> {
    check_file_except(repo, name, path, code, &[])
}

/// [`check_file`], where the commits of `unmeasured` do not make a file
/// stale (they changed the code's files, not what it runs).
pub fn check_file_except(
    repo: &Path,
    name: &str,
    path: &Path,
    code: &[&str],
    unmeasured: &[Unmeasured],
) -> Result<(), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read `{name}` ({e}): is it in the measurements folder?"))?;
    let measure = how_to_measure(&text);
    let Some(commit) = header_value(&text, "commit") else {
        return Err(format!(
            "`{name}` has no `commit:` line: measure it again with {measure}"
        ));
    };
    let commit = commit.strip_suffix("-dirty").unwrap_or(commit);
    if commit.len() < 4 || !commit.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!(
            "`{name}` says `commit: {commit}`, which is not a commit: measure it again with {measure}, from a git checkout"
        ));
    }
    if git(
        repo,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{commit}^{{commit}}"),
        ],
    )
    .is_none()
    {
        if git(repo, &["rev-parse", "--is-shallow-repository"]).as_deref() == Some("true") {
            return Err(format!(
                "`{name}` was measured at commit `{commit}`, which this shallow clone does not have: fetch the history (`git fetch --unshallow`)"
            ));
        }
        return Err(format!(
            "`{name}` was measured at commit `{commit}`, which is not in this repository: measure it again with {measure}"
        ));
    }
    if git(repo, &["merge-base", "--is-ancestor", commit, "HEAD"]).is_none() {
        return Err(format!(
            "`{name}` was measured at commit `{commit}`, which is not in the history of `HEAD` (a rebased or abandoned branch): measure it again with {measure}"
        ));
    }
    let mut log = vec!["log", "--format=%H %h %s"];
    let range = format!("{commit}..HEAD");
    log.extend([range.as_str(), "--"]);
    log.extend(code);
    let changes = git(repo, &log).ok_or_else(|| {
        format!(
            "`git log {range}` failed in `{}`: is git installed?",
            repo.display()
        )
    })?;
    let commits: Vec<&str> = changes
        .lines()
        .filter_map(|line| line.split_once(' '))
        .filter(|(full, _)| !unmeasured.iter().any(|u| u.commit == *full))
        .map(|(_, shown)| shown)
        .collect();
    if commits.is_empty() {
        return Ok(());
    }
    let shown: Vec<String> = commits.iter().take(3).map(|c| format!("`{c}`")).collect();
    let more = match commits.len() {
        n if n > 3 => format!(" and {} more", n - 3),
        _ => String::new(),
    };
    Err(format!(
        "`{name}` is stale: it was measured at commit `{commit}`, and {} commit(s) since changed the code it measures ({}{more}): measure it again with {measure}",
        commits.len(),
        shown.join(", ")
    ))
}

/// Checks every file of the measurements folder `folder` of the repository
/// `repo` against [`MEASURED`], skipping the files of [`NOT_YET_REMEASURED`]
/// that still have no `commit:` line. One message per problem.
pub fn check(repo: &Path, folder: &Path) -> Vec<String> {
    let mut problems = check_with(repo, folder, MEASURED, NOT_YET_REMEASURED);
    for u in UNMEASURED {
        let known = git(repo, &["merge-base", "--is-ancestor", u.commit, "HEAD"]).is_some();
        if !known {
            problems.push(format!(
                "`UNMEASURED` names commit `{}`, which is not in the history of `HEAD`: take it off, or fetch the history (`git fetch --unshallow`)",
                u.commit
            ));
        }
    }
    problems
}

/// [`check`] with its table and its list of files not measured again.
pub fn check_with(
    repo: &Path,
    folder: &Path,
    measured: &[Measured],
    not_yet: &[&str],
) -> Vec<String> {
    let mut problems = Vec::new();
    let mut files: Vec<String> = std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|name| name.ends_with(".txt"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    for name in &files {
        if !measured.iter().any(|m| m.file == name) {
            problems.push(format!(
                "`{name}` is not in `book_check::provenance::MEASURED`: add the code that produces it"
            ));
        }
    }
    for entry in measured {
        problems.extend(check_entry(repo, folder, entry, &files, not_yet));
    }
    for name in not_yet {
        if !measured.iter().any(|m| m.file == *name) {
            problems.push(format!(
                "`NOT_YET_REMEASURED` names `{name}`, which `MEASURED` does not: take it off"
            ));
        }
    }
    problems
}

/// What is wrong with one entry of the table, and with its file.
fn check_entry(
    repo: &Path,
    folder: &Path,
    entry: &Measured,
    files: &[String],
    not_yet: &[&str],
) -> Vec<String> {
    let name = entry.file;
    let mut problems = Vec::new();
    for spec in entry.pathspecs() {
        let path = spec.strip_prefix(":!").unwrap_or(spec);
        if !repo.join(path).exists() {
            problems.push(format!(
                "`MEASURED` says `{name}` measures `{path}`, which does not exist: follow the rename"
            ));
        }
    }
    if !files.iter().any(|f| f == name) {
        problems.push(format!(
            "`MEASURED` names `{name}`, which is not in `{}`: take it off, or measure it",
            folder.display()
        ));
        return problems;
    }
    let path = folder.join(name);
    let has_commit =
        std::fs::read_to_string(&path).is_ok_and(|text| header_value(&text, "commit").is_some());
    if not_yet.contains(&name) {
        if has_commit {
            problems.push(format!(
                "`{name}` has a `commit:` line now: take it off `NOT_YET_REMEASURED`"
            ));
        }
        return problems;
    }
    let code = entry.pathspecs();
    problems.extend(check_file_except(repo, name, &path, &code, UNMEASURED).err());
    if has_commit && let Ok(text) = std::fs::read_to_string(&path) {
        problems.extend(check_toolchain(name, &text, entry.on).err());
    }
    problems
}

/// Whether the header of a measurement file (`name`, its text `text`)
/// records what it ran on besides the commit: the driver always, and the
/// CUDA compiler or toolkit: an `nvrtc:` line for the Rust programs (which
/// compile their kernels with NVRTC), the `CUDA x.y` PyTorch was built
/// with in the `device:` line of a PyTorch script.
pub fn check_toolchain(name: &str, text: &str, on: On) -> Result<(), String> {
    let measure = how_to_measure(text);
    let known = |key| header_value(text, key).filter(|v| !v.is_empty() && *v != "unknown");
    if known("driver").is_none() {
        return Err(format!(
            "`{name}` does not say which driver it ran on (no `driver:` line, or `unknown`): measure it again with {measure}"
        ));
    }
    let toolkit = match on {
        On::Benches | On::Gpu => known("nvrtc").is_some(),
        On::Python => known("device").is_some_and(|device| {
            device
                .split("CUDA ")
                .nth(1)
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        }),
    };
    if !toolkit {
        let wanted = match on {
            On::Benches | On::Gpu => "an `nvrtc:` line",
            On::Python => "`CUDA x.y` in its `device:` line",
        };
        return Err(format!(
            "`{name}` does not say which CUDA compiler it ran with ({wanted}): measure it again with {measure}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
