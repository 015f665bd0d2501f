//! Writes the allocator chapter's figures into `chapters/figures/`:
//!
//! ```text
//! cargo run -p workbook-benches --example figures
//! ```
//!
//! Each is drawn from the reference allocator's snapshots, so `cargo test`
//! fails when a committed figure no longer matches what the allocator does.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../chapters/figures");
    for (name, svg) in workbook_benches::figures::all() {
        let path = dir.join(name);
        if let Err(e) = fs_err::write(&path, svg) {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
        println!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}
