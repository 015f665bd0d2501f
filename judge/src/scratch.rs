//! Scratch copies of a crate: its `Cargo.toml` and `src/`, and nothing
//! else, for the known-wrong variants (a copy of the solution with one file
//! replaced) and for `judge grade --keep` (the exact sources graded).
//!
//! A file is rewritten only when its content changed, so building a copy
//! again rebuilds nothing, and a file removed from the crate is removed
//! from the copy. Symbolic links are not followed. Relative `path`
//! dependencies are anchored at the crate's home folder. (What grading
//! takes from a student's crate is the `intake` module's business.)

use crate::course::Course;
use crate::files::write_if_changed;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

/// The judge's scratch folder `what`, made, and written without `..` (so
/// that it is the path the compiler's messages name).
pub(crate) fn folder(course: &Course, what: &str) -> Result<PathBuf> {
    let base = course.scratch(what);
    fs_err::create_dir_all(&base)?;
    Ok(fs_err::canonicalize(&base)?)
}

/// Makes `to` a copy of the crate `from`'s `Cargo.toml` and `src/`, with
/// relative `path` dependencies anchored at `home`.
pub(crate) fn copy_crate(from: &Path, to: &Path, home: &Path) -> Result<()> {
    fs_err::create_dir_all(to)?;
    for entry in read_dir(to)? {
        let name = entry.file_name();
        if name != "Cargo.toml" && name != "src" {
            remove(&entry.path())?;
        }
    }
    match std::fs::read(from.join("Cargo.toml")) {
        Ok(manifest) => write_if_changed(&to.join("Cargo.toml"), &anchor_paths(&manifest, home))?,
        Err(_) => remove(&to.join("Cargo.toml"))?,
    }
    sync_tree(&from.join("src"), &to.join("src"))
}

/// Makes the tree `to` hold exactly the files and folders of `from`.
fn sync_tree(from: &Path, to: &Path) -> Result<()> {
    if !from.is_dir() {
        return remove(to);
    }
    for entry in WalkDir::new(to)
        .contents_first(true)
        .into_iter()
        .filter_map(Result::ok)
    {
        let relative = entry.path().strip_prefix(to).expect("under the root");
        let twin = std::fs::symlink_metadata(from.join(relative)).ok();
        let same_kind = twin.is_some_and(|t| {
            t.is_dir() == entry.file_type().is_dir() && !t.file_type().is_symlink()
        });
        if !same_kind {
            remove(entry.path())?;
        }
    }
    for entry in WalkDir::new(from) {
        let entry = entry.with_context(|| format!("cannot read `{}`", from.display()))?;
        let target = to.join(entry.path().strip_prefix(from).expect("under the root"));
        if entry.file_type().is_dir() {
            fs_err::create_dir_all(&target)?;
        } else if entry.file_type().is_file() {
            write_if_changed(&target, &fs_err::read(entry.path())?)?;
        }
    }
    Ok(())
}

/// `manifest` with each relative `path` dependency made absolute from `home`
/// (unchanged when there is none, or when it does not parse: cargo will say).
pub(crate) fn anchor_paths(manifest: &[u8], home: &Path) -> Vec<u8> {
    let parsed = std::str::from_utf8(manifest)
        .ok()
        .and_then(|text| toml::from_str::<toml::Table>(text).ok());
    let Some(mut table) = parsed else {
        return manifest.to_vec();
    };
    let mut changed = false;
    for dependencies in dependency_tables(&mut table) {
        for dependency in dependencies.iter_mut().map(|(_, d)| d) {
            let Some(path) = dependency.get_mut("path") else {
                continue;
            };
            if let Some(relative) = path.as_str().filter(|p| Path::new(p).is_relative()) {
                *path = toml::Value::String(home.join(relative).to_string_lossy().into_owned());
                changed = true;
            }
        }
    }
    match changed.then(|| toml::to_string(&table)) {
        Some(Ok(text)) => text.into_bytes(),
        _ => manifest.to_vec(),
    }
}

/// The `[dependencies]`, `[dev-dependencies]` and `[build-dependencies]`
/// tables of a manifest, with those under `[target.'cfg(..)']`.
fn dependency_tables(manifest: &mut toml::Table) -> Vec<&mut toml::Table> {
    const KINDS: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];
    let mut tables = Vec::new();
    for (key, value) in manifest.iter_mut() {
        match value.as_table_mut() {
            Some(table) if KINDS.contains(&key.as_str()) => tables.push(table),
            Some(targets) if key == "target" => {
                for platform in targets.iter_mut().filter_map(|(_, p)| p.as_table_mut()) {
                    let kinds = platform
                        .iter_mut()
                        .filter(|(k, _)| KINDS.contains(&k.as_str()));
                    tables.extend(kinds.filter_map(|(_, v)| v.as_table_mut()));
                }
            }
            _ => {}
        }
    }
    tables
}

/// The entries of `dir`.
fn read_dir(dir: &Path) -> Result<Vec<fs_err::DirEntry>> {
    Ok(fs_err::read_dir(dir)?.collect::<std::io::Result<_>>()?)
}

/// Removes a file or a folder, if there.
fn remove(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => fs_err::remove_dir_all(path)?,
        Ok(_) => fs_err::remove_file(path)?,
        Err(_) => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_only_the_manifest_and_the_sources() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("from"), dir.path().join("to"));
        for file in [
            "Cargo.toml",
            "build.rs",
            "src/lib.rs",
            "src/deep/mod.rs",
            "tests/cheat.rs",
        ] {
            std::fs::create_dir_all(from.join(file).parent().unwrap()).unwrap();
            std::fs::write(from.join(file), file).unwrap();
        }
        std::fs::create_dir_all(to.join("src/stale")).unwrap();
        std::fs::write(to.join("src/old.rs"), "gone").unwrap();
        copy_crate(&from, &to, Path::new("/course/exercises/101-x")).unwrap();
        let mut copied: Vec<String> = WalkDir::new(&to)
            .into_iter()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().is_file())
            .map(|e| e.path().strip_prefix(&to).unwrap().display().to_string())
            .collect();
        copied.sort();
        assert_eq!(copied, ["Cargo.toml", "src/deep/mod.rs", "src/lib.rs"]);
    }

    #[test]
    fn anchors_relative_path_dependencies_at_the_course() {
        let manifest = "[package]\nname = \"x\"\n[dependencies]\ngpu = { path = \"../../gpu\" }\nserde = \"1\"\n[target.'cfg(unix)'.dev-dependencies]\nh = { path = \"h\" }\n";
        let home = Path::new("/course/exercises/101-x");
        let anchored: toml::Table =
            toml::from_str(std::str::from_utf8(&anchor_paths(manifest.as_bytes(), home)).unwrap())
                .unwrap();
        assert_eq!(
            anchored["dependencies"]["gpu"]["path"].as_str(),
            Some("/course/exercises/101-x/../../gpu")
        );
        assert_eq!(
            anchored["target"]["cfg(unix)"]["dev-dependencies"]["h"]["path"].as_str(),
            Some("/course/exercises/101-x/h")
        );
        let plain = b"[package]\nname = \"x\" # kept as written\n";
        assert_eq!(anchor_paths(plain, home), plain);
    }
}
