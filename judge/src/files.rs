//! Writing files the way the judge needs: only when the content changed
//! (so that cargo's fingerprints stay valid and builds stay incremental), or
//! atomically (so that a reader never sees half a results file); the hash
//! that names a folder after the paths it serves, and the SHA-256 that
//! records what was graded.

use anyhow::Result;
use std::path::Path;

/// Writes `bytes` unless the file already holds them (keeps cargo's fingerprints).
pub(crate) fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<()> {
    if std::fs::read(path).ok().as_deref() == Some(bytes) {
        return Ok(());
    }
    Ok(fs_err::write(path, bytes)?)
}

/// The most bytes of a file's name its temporary file's name keeps.
const TEMPORARY_KEPT: usize = 200;

/// Writes `text` to a temporary file beside `path`, then renames it over
/// `path`; when either fails, removes the temporary file.
pub(crate) fn write_atomically(path: &Path, text: &str) -> Result<()> {
    let temporary = path.with_file_name(temporary_name(path));
    let written = fs_err::write(&temporary, text).and_then(|()| fs_err::rename(&temporary, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    Ok(written?)
}

/// The name of [`write_atomically`]'s temporary file for `path`:
/// `.NAME.PID.tmp`, its `NAME` cut to [`TEMPORARY_KEPT`] bytes (then with
/// `~` and a hash of the whole), so that it fits the file system whenever
/// `path`'s name does.
fn temporary_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut end = name.len().min(TEMPORARY_KEPT);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    let kept = match end < name.len() {
        true => format!("{}~{:08x}", &name[..end], paths_hash(&[path])),
        false => name,
    };
    format!(".{kept}.{}.tmp", std::process::id())
}

/// A stable 32-bit FNV-1a hash of some paths.
pub(crate) fn paths_hash(paths: &[&Path]) -> u32 {
    let bytes = paths
        .iter()
        .flat_map(|p| p.to_string_lossy().into_owned().into_bytes());
    bytes.fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// The SHA-256 of `bytes`, in hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_name_fits_whenever_the_files_name_does() {
        let short = temporary_name(Path::new("results/ada.json"));
        assert_eq!(short, format!(".ada.json.{}.tmp", std::process::id()));
        for name in ["a".repeat(255), "é".repeat(127)] {
            let long = temporary_name(&Path::new("results").join(&name));
            assert!(long.len() <= 255 - 20, "{} bytes: {long}", long.len());
        }
        let (a, b) = ("x".repeat(250) + "a", "x".repeat(250) + "b");
        assert_ne!(temporary_name(Path::new(&a)), temporary_name(Path::new(&b)));
    }
}
