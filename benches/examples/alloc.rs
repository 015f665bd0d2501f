//! The caching allocator against raw device segments, as the allocator
//! chapter's table reports it:
//!
//! ```text
//! cargo run --release -p workbook-benches --example alloc   # CUDA if present, else the virtual GPU
//! GPU_BACKEND=virtual cargo run --release -p workbook-benches --example alloc
//! ```
//!
//! It takes a few seconds. Cached pairs are timed with the CPU's clock; raw
//! `cuMemAlloc` / `cuMemFree` with the device's clock, which is modelled time
//! on the virtual GPU.

use gpu::{Backend, Device};
use std::process::ExitCode;
use workbook_benches::allocator::{Config, run};
use workbook_benches::{example_command, header};
use workbook_commit::COMMIT;

fn main() -> ExitCode {
    let report = Device::open(Backend::Auto)
        .map_err(Into::into)
        .and_then(|device| {
            let header = header(&device, &example_command("alloc"), COMMIT);
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
