//! The judge's build cache for submissions: the `gpu` crate, the harness
//! runtime and their dependencies, compiled once, by the judge alone, in a
//! target folder of its own (`target/judge/cache/`). Student builds never
//! write it: each submission builds in a target folder of its own, which
//! starts as a copy of the cache ([`seed`]), so that grading stays
//! incremental (a submission's build compiles its crate and the harness,
//! nothing else) and nothing one submission's build writes is used by
//! another's.
//!
//! The copy is made of hard links (a class of hundreds would otherwise take
//! a copy of the cache each, a few hundred MiB), and only its folders are
//! the sandbox user's: the files stay the judge's, which that user cannot
//! write (when the judge is root), and which a build never writes anyway:
//! cargo finds them fresh, and writes only the new files of the crate under
//! test and of the harness (no code of the student's runs in a build: its
//! manifest is the course's, with no build script and no proc macro). Where
//! a hard link cannot be made (another file system), the file is copied.
//!
//! The cache is built from a crate made of a harness's own manifest less
//! the crate under test, so it has the same dependencies, features and
//! profile as every harness, and cargo finds the copies fresh.

use crate::compile::{self, Spec};
use crate::course::Course;
use crate::files::write_atomically;
use crate::sandbox::Sandbox;
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use walkdir::WalkDir;

/// The name of the cache's own crate (whose files are not copied).
const NAME: &str = "judge-cache";

/// The subfolders of a target's `release/` that the copies hold.
const COPIED: [&str; 3] = ["deps", "build", ".fingerprint"];

/// The file in a submission's target folder that names the cache it copies.
const STAMP: &str = ".judge-cache";

/// The cache's folder.
pub(crate) fn dir(course: &Course) -> PathBuf {
    course.scratch("cache")
}

/// A built cache, by the state of its files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Cache {
    release: PathBuf,
    stamp: String,
}

/// The cache for `course`'s harnesses, built ([`ensure`]) for the first
/// exercise's; none for a course without exercises.
pub(crate) fn for_course(course: &Course) -> Result<Option<Cache>> {
    let Some(exercise) = course.manifest.exercises.first() else {
        return Ok(None);
    };
    let starter = course.exercise_dir(exercise);
    let spec = Spec::new(
        course,
        exercise,
        &starter,
        &crate::role::Role::Exercise,
        compile::Kind::Harness,
    )?;
    ensure(course, &spec).map(Some)
}

/// Builds the cache for harnesses like `spec`'s, outside the sandbox (it
/// compiles only the judge's crates and their dependencies), and returns it.
pub(crate) fn ensure(course: &Course, spec: &Spec) -> Result<Cache> {
    let crate_dir = dir(course).join("crate");
    fs_err::create_dir_all(&crate_dir)?;
    let manifest = cache_manifest(
        &compile::manifest(course, spec)?,
        &spec.lib,
        bridges(course),
    )?;
    // Judges grading side by side share the cache: each file is replaced
    // whole, never seen half written.
    replace(&crate_dir.join("Cargo.toml"), &manifest)?;
    replace(&crate_dir.join("lib.rs"), "//! The judge's build cache.\n")?;
    let lock = course.tools.join("Cargo.lock");
    if lock.is_file() {
        replace(
            &crate_dir.join("Cargo.lock"),
            &fs_err::read_to_string(&lock)?,
        )?;
    }
    let target = dir(course).join("target");
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--lib", "--quiet", "--manifest-path"])
        .arg(crate_dir.join("Cargo.toml"))
        .current_dir(&crate_dir)
        .env("CARGO_TARGET_DIR", &target)
        .stdin(Stdio::null())
        .output()
        .context("cannot run `cargo`; is the Rust toolchain installed? (`judge doctor` checks)")?;
    if !out.status.success() {
        bail!(
            "cannot build the judge's cache in `{}`:\n{}",
            target.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let release = target.join("release");
    Ok(Cache {
        stamp: stamp(&release)?,
        release,
    })
}

/// Every exercise's bridge, as dependencies of the cache crate (by the
/// name `bridge-ID`), so that an agent's build (its crate, its bridge, the
/// `gpu` crate and the harness runtime) finds its bridge compiled.
fn bridges(course: &Course) -> Vec<(String, toml::Value)> {
    let mut bridges = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for exercise in &course.manifest.exercises {
        let dir = course.bridge_dir(exercise);
        let Ok(package) = compile::package_name(&dir) else {
            continue;
        };
        // Exercises may share a bridge (the fixture course's do).
        if !seen.insert(dir.clone()) {
            continue;
        }
        let mut dependency = toml::Table::new();
        dependency.insert("path".into(), dir.to_string_lossy().into_owned().into());
        dependency.insert("package".into(), package.into());
        bridges.push((format!("bridge-{}", exercise.id), dependency.into()));
    }
    bridges
}

/// Writes `text` to `path` unless it holds it already, atomically.
fn replace(path: &Path, text: &str) -> Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|t| t == text) {
        return Ok(());
    }
    write_atomically(path, text)
}

/// A harness manifest less the crate under test (the dependency named
/// `lib`) and its binary, with `more` dependencies: a library crate with
/// the same dependencies and those.
fn cache_manifest(harness: &str, lib: &str, more: Vec<(String, toml::Value)>) -> Result<String> {
    let mut table: toml::Table =
        toml::from_str(harness).context("the harness manifest is not TOML")?;
    table.remove("bin");
    if let Some(package) = table.get_mut("package").and_then(toml::Value::as_table_mut) {
        package.insert("name".into(), NAME.into());
    }
    if let Some(deps) = table
        .get_mut("dependencies")
        .and_then(toml::Value::as_table_mut)
    {
        deps.remove(lib);
        deps.extend(more);
    }
    let mut lib_table = toml::Table::new();
    lib_table.insert("path".into(), "lib.rs".into());
    table.insert("lib".into(), lib_table.into());
    Ok(toml::to_string(&table)?)
}

/// What the cache's fingerprints are now: their names and times, hashed.
fn stamp(release: &Path) -> Result<String> {
    let mut entries = Vec::new();
    for entry in WalkDir::new(release.join(".fingerprint")).sort_by_file_name() {
        let entry = entry.with_context(|| format!("cannot read `{}`", release.display()))?;
        let modified = entry.metadata().ok().and_then(|m| m.modified().ok());
        entries.push(format!("{} {modified:?}", entry.path().display()));
    }
    Ok(crate::files::sha256_hex(entries.join("\n").as_bytes()))
}

/// Makes `target` (a submission's target folder) a copy of `cache`, the
/// sandbox user's, unless it is one already.
pub(crate) fn seed(cache: &Cache, target: &Path, sandbox: &Sandbox) -> Result<()> {
    let stamp_file = target.join(STAMP);
    if std::fs::read_to_string(&stamp_file).is_ok_and(|s| s == cache.stamp) {
        return Ok(());
    }
    if target.exists() {
        fs_err::remove_dir_all(target)?;
    }
    fs_err::create_dir_all(target)?;
    for sub in COPIED {
        let to = target.join("release").join(sub);
        link_tree(&cache.release.join(sub), &to, sandbox)?;
    }
    fs_err::write(&stamp_file, &cache.stamp)?;
    sandbox.hand_over_folder(target)?;
    sandbox.hand_over_folder(&target.join("release"))
}

/// Makes the tree `to` of `from`'s folders (the sandbox user's) and hard
/// links to its files (or, on another file system, copies that keep their
/// modification times, which cargo's freshness compares), leaving out the
/// cache crate's own files.
fn link_tree(from: &Path, to: &Path, sandbox: &Sandbox) -> Result<()> {
    let own = |name: &str| name.contains("judge-cache") || name.contains("judge_cache");
    let walk = WalkDir::new(from)
        .into_iter()
        .filter_entry(|e| !own(&e.file_name().to_string_lossy()));
    let gone = |e: &std::io::Error| e.kind() == std::io::ErrorKind::NotFound;
    for entry in walk {
        // A file cargo removed meanwhile (a judge beside this one rebuilding
        // the cache: its temporary `rmeta` files) is no part of the cache.
        let entry = match entry {
            Err(e) if e.io_error().is_some_and(gone) => continue,
            other => other.with_context(|| format!("cannot read `{}`", from.display()))?,
        };
        let target = to.join(entry.path().strip_prefix(from).expect("under the root"));
        if entry.file_type().is_dir() {
            sandbox.hand_over_folder(&target)?;
        } else if entry.file_type().is_file() && std::fs::hard_link(entry.path(), &target).is_err()
        {
            if !entry.path().exists() {
                continue;
            }
            fs_err::copy(entry.path(), &target)?;
            let modified = entry.metadata()?.modified()?;
            fs_err::File::open(&target)?.set_modified(modified)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_crate_is_a_harness_without_the_crate_under_test() {
        let harness = "[package]\nname = \"harness-1\"\n[[bin]]\nname = \"harness-1\"\npath = \"main.rs\"\n[dependencies]\nfixture = { path = \"/x\" }\ngpu = { path = \"/t/gpu\" }\n[profile.release]\ndebug = false\n";
        let cache: toml::Table =
            toml::from_str(&cache_manifest(harness, "fixture", Vec::new()).unwrap()).unwrap();
        assert_eq!(cache["package"]["name"].as_str(), Some(NAME));
        assert!(cache.get("bin").is_none());
        assert!(cache["dependencies"].get("fixture").is_none());
        assert!(cache["dependencies"].get("gpu").is_some());
        assert_eq!(cache["profile"]["release"]["debug"].as_bool(), Some(false));
        assert_eq!(cache["lib"]["path"].as_str(), Some("lib.rs"));
    }
}
