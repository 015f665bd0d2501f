//! Profiles the profiling chapter's decode step
//! ([`workbook_benches::profile_step`]): the table of its ranges and the
//! step's figures, on the GPU with every operation timed (or on the
//! virtual GPU), and its Chrome trace for Perfetto, written to the path
//! given (default `gpu_step.json`):
//!
//! ```text
//! cargo run --release -p workbook-benches --example profile_step -- chapters/profiles/gpu_step.json
//! ```

use gpu::Result;
use workbook_benches::open_timed_example;
use workbook_benches::profile_step::{chapter_step, profile, report};
use workbook_commit::COMMIT;

fn main() -> Result<()> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "gpu_step.json".into());
    let device = open_timed_example("profile_step", COMMIT)?;
    let (shape, steps) = (chapter_step(), 3);
    let trace = profile(&device, &shape, 5, steps)?;
    println!("\n{}", report(&trace, &shape, steps));
    let json = trace.to_chrome_json();
    match std::fs::write(&path, &json) {
        Ok(()) => println!("chrome trace        {path} ({} KiB)", json.len() / 1024),
        Err(e) => eprintln!("error: cannot write `{path}` ({e}): pass a path that can be written"),
    }
    Ok(())
}
