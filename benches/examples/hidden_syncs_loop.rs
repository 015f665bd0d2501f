//! The serving loop of exercise 104 in miniature, with a hidden sync every
//! step and with one wait per window, against the decoder step alone:
//!
//! ```text
//! cargo run --release -p workbook-benches --example hidden_syncs_loop
//! GPU_BACKEND=virtual cargo run --release -p workbook-benches --example hidden_syncs_loop
//! ```

use gpu::{Backend, Device, DeviceOptions};
use std::process::ExitCode;
use workbook_benches::sync_loop::{LoopConfig, report};

fn main() -> ExitCode {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Auto,
        quiet: true,
        ..DeviceOptions::default()
    });
    let text = device.and_then(|d| {
        let command = workbook_benches::example_command("hidden_syncs_loop");
        let header = workbook_benches::header(&d, &command, workbook_commit::COMMIT);
        Ok(format!(
            "{header}\n{}",
            report(&d, &LoopConfig::exercise())?
        ))
    });
    match text {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
