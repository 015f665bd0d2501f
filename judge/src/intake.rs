//! What the judge takes from a submission's crate: nothing but the regular
//! `.rs` files under its `src/`. The manifest it builds is the course's own
//! (`exercises/ID-SLUG/Cargo.toml`), made safe: no build script, no `[lib]
//! path`, no binaries, examples, tests or benches, no `[patch]`,
//! `[replace]` or `[workspace]`, no dev or build dependencies, and
//! `unsafe_code` forbidden whatever the student wrote. The package, the
//! library's name, the lints and the dependencies are the course's.
//!
//! A symbolic link anywhere on the way (the `exercises/` folder, the
//! exercise folder, `src/`, or beneath it), a device, a fifo or a socket, a
//! `.rs` file that is not UTF-8 or too large, or too many files, is refused
//! with a message that names it: the exercise gets a verdict, and grading
//! goes on. So is anything of the submission's that cannot be read or
//! copied (a folder it may not read, a path too long for the judge's
//! scratch folder): no file of one submission stops the class. Every file
//! taken is recorded with its SHA-256, for audits.

use crate::files::{sha256_hex, write_if_changed};
use crate::scratch::anchor_paths;
use anyhow::{Context, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

/// The largest `.rs` file taken.
const FILE_LIMIT: u64 = 1 << 20;
/// The most `.rs` files taken from one crate.
const COUNT_LIMIT: usize = 1000;
/// How deep `src/` may go.
const DEPTH_LIMIT: usize = 16;

/// A file the judge graded: its path in the crate, and its SHA-256.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct GradedFile {
    /// `Cargo.toml` (the judge's), or `src/...`.
    pub(crate) path: String,
    /// The SHA-256 of its bytes, in hex.
    pub(crate) sha256: String,
}

/// What came of taking a crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Intake {
    /// The crate to build, and every file of it.
    Taken(Vec<GradedFile>),
    /// Why the submission's crate cannot be taken.
    Refused(String),
}

/// Where a submission's crate is, as the messages name it.
#[derive(Clone, Debug)]
pub(crate) struct Source<'a> {
    /// The submission's folder.
    pub(crate) submission: &'a Path,
    /// `exercises/ID-SLUG`, relative to it.
    pub(crate) folder: &'a Path,
}

/// Makes `to` the crate the judge builds for the submission's crate at
/// `source`: `manifest` (the course's own, from `course_dir`) made safe,
/// and the `.rs` files of the submission's `src/`.
pub(crate) fn take(
    source: &Source<'_>,
    to: &Path,
    manifest: &Path,
    course_dir: &Path,
) -> Result<Intake> {
    let sources = match read_sources(source)? {
        Ok(sources) => sources,
        Err(refusal) => return Ok(Intake::Refused(refusal)),
    };
    let text = fs_err::read_to_string(manifest)?;
    let safe = safe_manifest(&text, course_dir).with_context(|| {
        format!(
            "the course's `{}` is not a manifest the judge can build",
            manifest.display()
        )
    })?;
    let _ = std::fs::remove_dir_all(to.join("src"));
    fs_err::create_dir_all(to)?;
    write_if_changed(&to.join("Cargo.toml"), safe.as_bytes())?;
    let mut files = vec![graded("Cargo.toml", safe.as_bytes())];
    for (relative, bytes) in &sources {
        let target = to.join(relative);
        let copied = fs_err::create_dir_all(target.parent().expect("a file under the crate"))
            .map_err(anyhow::Error::from)
            .and_then(|()| write_if_changed(&target, bytes));
        if let Err(e) = copied {
            let shown = source.folder.join(relative);
            return Ok(Intake::Refused(format!(
                "`{}` cannot be copied into the judge's scratch folder ({}); shorten its path",
                shown.display(),
                e.root_cause()
            )));
        }
        files.push(graded(&relative.to_string_lossy(), bytes));
    }
    Ok(Intake::Taken(files))
}

/// The `.rs` files under `src/`: their paths from the crate, and bytes.
type Sources = Vec<(PathBuf, Vec<u8>)>;

/// The `.rs` files under `src/`, or why they cannot be taken.
fn read_sources(source: &Source<'_>) -> Result<Result<Sources, String>> {
    let crate_dir = source.submission.join(source.folder);
    for (path, shown) in [
        (
            source.submission.join("exercises"),
            PathBuf::from("exercises"),
        ),
        (crate_dir.clone(), source.folder.to_path_buf()),
        (crate_dir.join("src"), source.folder.join("src")),
    ] {
        if is_link(&path) {
            return Ok(Err(link(&shown)));
        }
    }
    let src = crate_dir.join("src");
    if !src.is_dir() {
        return Ok(Ok(Vec::new()));
    }
    let mut sources = Vec::new();
    for entry in WalkDir::new(&src)
        .follow_links(false)
        .max_depth(DEPTH_LIMIT)
    {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                let shown = e.path().and_then(|p| p.strip_prefix(&crate_dir).ok());
                let shown = source.folder.join(shown.unwrap_or(Path::new("src")));
                return Ok(Err(format!(
                    "`{}` cannot be read ({}); the judge grades the `.rs` files it can read under `src/`",
                    shown.display(),
                    e.io_error()
                        .map_or_else(|| e.to_string(), ToString::to_string)
                )));
            }
        };
        let relative = entry
            .path()
            .strip_prefix(&crate_dir)
            .expect("under the crate");
        let shown = source.folder.join(relative);
        match take_entry(&entry, &shown)? {
            Taken::Skip => {}
            Taken::File(bytes) => sources.push((relative.to_path_buf(), bytes)),
            Taken::Refused(why) => return Ok(Err(why)),
        }
        if sources.len() > COUNT_LIMIT {
            return Ok(Err(format!(
                "`{}` has more than {COUNT_LIMIT} `.rs` files; the judge grades at most {COUNT_LIMIT}",
                source.folder.join("src").display()
            )));
        }
    }
    Ok(Ok(sources))
}

/// What one entry beneath `src/` gives.
enum Taken {
    /// A folder, or a file that is not `.rs`: nothing.
    Skip,
    /// A `.rs` file's bytes.
    File(Vec<u8>),
    /// It cannot be taken: why.
    Refused(String),
}

fn take_entry(entry: &walkdir::DirEntry, shown: &Path) -> Result<Taken> {
    let kind = entry.file_type();
    if kind.is_symlink() {
        return Ok(Taken::Refused(link(shown)));
    }
    if kind.is_dir() {
        return Ok(Taken::Skip);
    }
    if !kind.is_file() {
        return Ok(Taken::Refused(format!(
            "`{}` is not a regular file (a device, a fifo or a socket); the judge grades only regular `.rs` files under `src/`",
            shown.display()
        )));
    }
    if entry.path().extension().is_none_or(|e| e != "rs") {
        return Ok(Taken::Skip);
    }
    let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
    if size > FILE_LIMIT {
        return Ok(Taken::Refused(format!(
            "`{}` is {size} bytes; the judge grades `.rs` files of at most {FILE_LIMIT} bytes",
            shown.display()
        )));
    }
    let bytes = match std::fs::read(entry.path()) {
        Ok(bytes) => bytes,
        Err(e) => {
            return Ok(Taken::Refused(format!(
                "`{}` cannot be read ({e})",
                shown.display()
            )));
        }
    };
    if std::str::from_utf8(&bytes).is_err() || shown.to_str().is_none() {
        return Ok(Taken::Refused(format!(
            "`{}` is not UTF-8 text; save it as UTF-8",
            shown.display()
        )));
    }
    Ok(Taken::File(bytes))
}

/// Whether `path` is a symbolic link.
fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// The refusal of a symbolic link.
fn link(shown: &Path) -> String {
    format!(
        "`{}` is a symbolic link; the judge grades only regular `.rs` files under `src/`: submit the files themselves",
        shown.display()
    )
}

fn graded(path: &str, bytes: &[u8]) -> GradedFile {
    GradedFile {
        path: path.to_string(),
        sha256: sha256_hex(bytes),
    }
}

/// The keys of `[package]` the built crate keeps.
const PACKAGE_KEYS: [&str; 6] = [
    "name",
    "version",
    "edition",
    "rust-version",
    "license",
    "description",
];

/// The course's manifest `text`, made safe (see the module's documentation),
/// its relative path dependencies anchored at `course_dir`.
pub(crate) fn safe_manifest(text: &str, course_dir: &Path) -> Result<String> {
    let anchored = anchor_paths(text.as_bytes(), course_dir);
    let table: toml::Table = toml::from_str(std::str::from_utf8(&anchored)?)?;
    let mut safe = toml::Table::new();
    let mut package: toml::Table = table
        .get("package")
        .and_then(toml::Value::as_table)
        .map(|p| {
            p.iter()
                .filter(|(k, _)| PACKAGE_KEYS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    package.insert("publish".into(), false.into());
    package.insert("build".into(), false.into());
    for auto in [
        "autobins",
        "autoexamples",
        "autotests",
        "autobenches",
        "autolib",
    ] {
        package.insert(auto.into(), false.into());
    }
    safe.insert("package".into(), package.into());
    let lib_name = table.get("lib").and_then(|l| l.get("name")).cloned();
    let mut lib = toml::Table::new();
    lib.extend(lib_name.map(|name| ("name".to_string(), name)));
    lib.insert("path".into(), "src/lib.rs".into());
    safe.insert("lib".into(), lib.into());
    for kept in ["dependencies", "features"] {
        if let Some(value) = table.get(kept) {
            safe.insert(kept.into(), value.clone());
        }
    }
    safe.insert("lints".into(), lints(table.get("lints")).into());
    Ok(toml::to_string(&safe)?)
}

/// The course's lints (not `workspace = true`: the built crate has no
/// workspace), with `unsafe_code` forbidden.
fn lints(course: Option<&toml::Value>) -> toml::Table {
    let mut lints: toml::Table = course
        .and_then(toml::Value::as_table)
        .map(|t| {
            t.iter()
                .filter(|(k, _)| *k != "workspace")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    let rust = lints
        .entry("rust")
        .or_insert_with(|| toml::Table::new().into());
    if let Some(rust) = rust.as_table_mut() {
        rust.insert("unsafe_code".into(), "forbid".into());
    }
    lints
}

#[cfg(test)]
mod tests;
