//! Whether a checker is built already: a checker is the judge's code alone
//! (its suite, its bridge, the `gpu` crate and the harness runtime), so it
//! changes only when one of those files does, or the judge. Each build
//! leaves beside the binary the stamp of its inputs (every file's path,
//! size and modification time, and the judge's own), and a checker whose
//! inputs match its stamp is taken as it is, without asking cargo: a warm
//! `judge run` then pays for one cargo call (the agent's), as a harness
//! does, not two.

use crate::files::sha256_hex;
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

/// The stamp of the files under `inputs` (folders walked, `target/`
/// folders left out) and of the judge's own binary.
pub(crate) fn stamp(inputs: &[PathBuf]) -> String {
    let mut lines = Vec::new();
    let judge = std::env::current_exe().ok();
    for root in inputs.iter().chain(judge.as_ref()) {
        let walk = WalkDir::new(root).sort_by_file_name().into_iter();
        for entry in walk
            .filter_entry(|e| !(e.file_type().is_dir() && e.file_name() == "target"))
            .flatten()
            .filter(|e| e.file_type().is_file())
        {
            let Ok(meta) = entry.metadata() else { continue };
            let modified = meta.modified().ok();
            lines.push(format!(
                "{} {} {modified:?}",
                entry.path().display(),
                meta.len()
            ));
        }
    }
    sha256_hex(lines.join("\n").as_bytes())
}

/// Where the stamp of `binary` is kept.
fn stamp_file(binary: &Path) -> PathBuf {
    let mut name = binary.file_name().unwrap_or_default().to_os_string();
    name.push(".inputs");
    binary.with_file_name(name)
}

/// `binary`, when it was built from `inputs` as they are now.
pub(crate) fn built(binary: &Path, inputs: &[PathBuf]) -> Option<PathBuf> {
    let kept = std::fs::read_to_string(stamp_file(binary)).ok()?;
    (binary.is_file() && kept == stamp(inputs)).then(|| binary.to_path_buf())
}

/// Records that `binary` was built from `inputs` as they are now (a stamp
/// that cannot be written costs a cargo call next time, nothing more).
pub(crate) fn record(binary: &Path, inputs: &[PathBuf]) {
    let _ = std::fs::write(stamp_file(binary), stamp(inputs));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_is_built_until_one_of_its_inputs_changes() {
        let dir = tempfile::tempdir().unwrap();
        let (source, binary) = (dir.path().join("src"), dir.path().join("checker-1"));
        std::fs::create_dir_all(source.join("target")).unwrap();
        std::fs::write(source.join("mod.rs"), "one").unwrap();
        std::fs::write(&binary, "elf").unwrap();
        let inputs = [source.clone()];
        assert_eq!(built(&binary, &inputs), None, "never stamped");
        record(&binary, &inputs);
        assert_eq!(built(&binary, &inputs), Some(binary.clone()));
        std::fs::write(source.join("target/out"), "built").unwrap();
        assert!(built(&binary, &inputs).is_some(), "target/ is no input");
        std::fs::write(source.join("mod.rs"), "two, longer").unwrap();
        assert_eq!(built(&binary, &inputs), None, "a changed input");
    }
}
