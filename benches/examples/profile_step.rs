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
use workbook_benches::profile_step::{chapter_step, profile, report};
use workbook_benches::{example_command, open_timed_example};
use workbook_commit::COMMIT;

/// `json` (a Chrome trace) with the measurement's provenance in its
/// `otherData`: the command, the commit and the date, as its header says.
fn with_provenance(json: &str, device: &gpu::Device) -> String {
    let mut doc: serde_json::Value = serde_json::from_str(json).expect("the export is JSON");
    let header = workbook_benches::header(device, &example_command("profile_step"), COMMIT);
    for line in header.lines() {
        if let Some((key, value)) = line.split_once(':') {
            doc["otherData"][key.trim()] = serde_json::Value::from(value.trim());
        }
    }
    serde_json::to_string(&doc).expect("a JSON value serializes")
}

fn main() -> Result<()> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "gpu_step.json".into());
    let device = open_timed_example("profile_step", COMMIT)?;
    let (shape, steps) = (chapter_step(), 3);
    let trace = profile(&device, &shape, 5, steps)?;
    println!("\n{}", report(&trace, &shape, steps));
    let json = with_provenance(&trace.to_chrome_json(), &device);
    match std::fs::write(&path, &json) {
        Ok(()) => println!("chrome trace        {path} ({} KiB)", json.len() / 1024),
        Err(e) => eprintln!("error: cannot write `{path}` ({e}): pass a path that can be written"),
    }
    Ok(())
}
