//! Every implicit sync point of the hidden-syncs chapter, and its fix,
//! behind a 20 ms gate; then 32 launches with and without
//! `CUDA_LAUNCH_BLOCKING=1`:
//!
//! ```text
//! cargo run --release -p workbook-benches --example hidden_syncs_implicit
//! GPU_BACKEND=virtual cargo run --release -p workbook-benches --example hidden_syncs_implicit
//! ```
//!
//! `CUDA_LAUNCH_BLOCKING` is read by the CUDA driver when it starts, so the
//! example runs itself again as a child process with the variable set. The
//! virtual GPU does not model the variable: there the child synchronizes
//! after each launch, which is what the variable does, and says so.

use gpu::{Backend, BackendKind, Device, DeviceOptions};
use std::process::{Command, ExitCode};
use workbook_benches::hidden_syncs;

const CHILD: &str = "--launch-blocking-child";

fn main() -> ExitCode {
    let result = if std::env::args().any(|a| a == CHILD) {
        child()
    } else {
        parent()
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn open() -> gpu::Result<Device> {
    Device::with_options(DeviceOptions {
        backend: Backend::Auto,
        quiet: true,
        ..DeviceOptions::default()
    })
}

fn parent() -> Result<(), Box<dyn std::error::Error>> {
    let device = open()?;
    print!(
        "{}",
        workbook_benches::header(
            &device,
            &workbook_benches::example_command("hidden_syncs_implicit"),
            workbook_commit::COMMIT,
        )
    );
    print!("{}", hidden_syncs::run(&device)?);
    let s = device.new_stream()?;
    hidden_syncs::launches(&s)?; // warm-up
    let normal = hidden_syncs::launches(&s)?;
    let output = Command::new(std::env::current_exe()?)
        .arg(CHILD)
        .env("CUDA_LAUNCH_BLOCKING", "1")
        .env("GPU_BACKEND", device.backend().to_string())
        .output()?;
    if !output.status.success() {
        return Err(format!(
            "the child with CUDA_LAUNCH_BLOCKING=1 failed: {}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    println!("\ndebug settings: 32 launches of a 100 us kernel, CPU time to submit them");
    println!("  normally:                   {normal:.3} ms");
    print!(
        "  CUDA_LAUNCH_BLOCKING=1:     {}",
        String::from_utf8(output.stdout)?
    );
    Ok(())
}

/// Runs in a process whose environment has `CUDA_LAUNCH_BLOCKING=1`.
fn child() -> Result<(), Box<dyn std::error::Error>> {
    let device = open()?;
    let s = device.new_stream()?;
    let ms = if device.backend() == BackendKind::Cuda {
        hidden_syncs::launches(&s)?; // warm-up
        hidden_syncs::launches(&s)?
    } else {
        // The virtual GPU ignores the variable: do what it does by hand.
        let start = device.now();
        for _ in 0..32 {
            s.spin(std::time::Duration::from_micros(100))?;
            s.synchronize()?;
        }
        (device.now() - start).as_secs_f64() * 1e3
    };
    let how = if device.backend() == BackendKind::Cuda {
        ""
    } else {
        " (virtual GPU: modelled as a synchronize after each launch)"
    };
    println!("{ms:.3} ms{how}");
    Ok(())
}
