//! The committed bundle (`chapters/widgets/`) is what `widgets/build` makes
//! of the sources: every SHA-256 that `widgets/BUNDLE` records, of the two
//! files built and of every file they were built from, still matches.
//!
//! The hashes of the inputs, not a rebuild, so that the test does not depend
//! on the toolchain (the WebAssembly's bytes do: they are reproducible across
//! machines and paths for one rustc, and `.ci/run` rebuilds and compares them
//! when its rustc is the one the stamp names).

use sha2::{Digest, Sha256};
use std::path::Path;

#[test]
fn the_committed_bundle_is_built_from_the_sources() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let stamp = std::fs::read_to_string(root.join("widgets/BUNDLE")).expect("widgets/BUNDLE");
    let mut checked = 0;
    let mut stale = Vec::new();
    for line in stamp
        .lines()
        .filter(|l| !l.starts_with('#') && !l.contains(": "))
    {
        let (hash, path) = line.split_once("  ").expect("a `hash  path` line");
        let now =
            std::fs::read(root.join(path)).map(|bytes| format!("{:x}", Sha256::digest(bytes)));
        match now {
            Ok(now) if now == hash => checked += 1,
            Ok(_) => stale.push(format!("{path} changed")),
            Err(_) => stale.push(format!("{path} is gone")),
        }
    }
    assert!(
        stale.is_empty(),
        "chapters/widgets/ is stale ({}): run `widgets/build` and commit what it writes",
        stale.join(", ")
    );
    assert!(
        stamp.contains("  chapters/widgets/workbook_widgets_bg.wasm") && checked > 20,
        "widgets/BUNDLE lists too little: run `widgets/build`"
    );
}
