//! The virtual GPU held to the GPU: every scenario the book measures, run on
//! the GPU (CUDA backend) and on the virtual GPU with its committed cost
//! table in one run, side by side, a ratio per row
//! ([`workbook_benches::fidelity`]).
//!
//! ```text
//! cargo run --release -p workbook-benches --example fidelity
//! ```

use gpu::{Backend, Device, DeviceOptions};
use std::process::ExitCode;
use workbook_benches::fidelity::{GPU_TOLERANCE, rows, table};
use workbook_benches::{example_command, header};
use workbook_commit::COMMIT;

fn open(backend: Backend) -> impl Fn(bool) -> gpu::Result<Device> {
    move |gpu_timing| {
        Device::with_options(DeviceOptions {
            backend,
            gpu_timing,
            quiet: true,
            ..DeviceOptions::default()
        })
    }
}

fn main() -> ExitCode {
    let run = || -> Result<String, workbook_benches::fidelity::Error> {
        let device = open(Backend::Cuda)(false)?;
        let head = header(&device, &example_command("fidelity"), COMMIT);
        drop(device);
        let gpu = rows(&open(Backend::Cuda))?;
        let model = rows(&open(Backend::Virtual))?;
        Ok(format!(
            "{head}\nEach scenario the book measures, on this GPU and on the virtual GPU (its built-in table); ratio: virtual / GPU.\nGPU rows are set by the GPU's work and the program's own waits (held within ±{}%); CPU rows by this host's cost of driver calls (reported).\n\n{}",
            GPU_TOLERANCE * 100.0,
            table(&gpu, &model)
        ))
    };
    match run() {
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
