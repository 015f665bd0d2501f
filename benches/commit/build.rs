//! Finds the commit the workspace is built from (`src/describe.rs`) and
//! hands it to the crate as `WORKBOOK_BUILT_FROM`.
//!
//! Runs again when `WORKBOOK_COMMIT` changes, when git's `HEAD`, the branch
//! it names or the index change (a checkout, a commit, `git add`), and when
//! a file of the measured code changes (which may make it `-dirty`).

#[path = "src/describe.rs"]
#[expect(
    unreachable_pub,
    reason = "public in the library, which re-exports them"
)]
mod describe;

use std::path::Path;

fn main() {
    println!("cargo::rerun-if-env-changed={}", describe::OVERRIDE);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for path in describe::watched(&root) {
        println!("cargo::rerun-if-changed={}", path.display());
    }
    let commit = match std::env::var(describe::OVERRIDE) {
        Ok(commit) if !commit.trim().is_empty() => commit.trim().to_string(),
        _ => describe::describe(&root).unwrap_or_else(|| {
            println!(
                "cargo::warning=no git commit found in `{}`: the measurement headers will say `commit:  {}`; set {}=<commit> when building outside a git checkout",
                root.display(),
                describe::UNKNOWN,
                describe::OVERRIDE
            );
            describe::UNKNOWN.to_string()
        }),
    };
    println!("cargo::rustc-env=WORKBOOK_BUILT_FROM={commit}");
}
