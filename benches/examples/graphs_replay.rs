//! What a CUDA graph saves, as the CUDA graphs chapter reports it:
//!
//! ```text
//! cargo run --release -p workbook-benches --example graphs_replay   # CUDA if present, else the virtual GPU
//! GPU_BACKEND=virtual cargo run --release -p workbook-benches --example graphs_replay
//! ```
//!
//! 200 empty kernels and the decode step of exercise 103, eager and
//! replayed: CPU submit time, GPU time, a loop of steps; then a
//! `synchronize` inside a capture. It takes about a second.

use gpu::{Backend, Device};
use std::process::ExitCode;
use workbook_benches::graphs::{Config, run};
use workbook_benches::{example_command, header};
use workbook_commit::COMMIT;

fn main() -> ExitCode {
    let report = Device::open(Backend::Auto)
        .map_err(Into::into)
        .and_then(|device| {
            let header = header(&device, &example_command("graphs_replay"), COMMIT);
            run(&device, &header, &Config::full())
        });
    match report {
        Ok(report) => {
            print!("{report}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
