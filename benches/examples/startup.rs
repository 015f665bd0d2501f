//! What opening the device costs a process: on the CUDA backend, creating
//! the context, compiling the workbook's kernel library with NVRTC and
//! loading it; then opening it a second time in the same process, when the
//! context is still retained and the compiled kernels are cached, so that
//! only the module is loaded again.
//!
//! ```text
//! cargo run --release -p workbook-benches --example startup
//! ```

use gpu::{Backend, BackendKind, Device, Result};
use std::time::{Duration, Instant};
use workbook_benches::{duration_text as t, example_command, header};
use workbook_commit::COMMIT;

/// Opens the device and returns it with the wall-clock time it took.
fn timed_open() -> Result<(Device, Duration)> {
    let start = Instant::now();
    let device = Device::open(Backend::Auto)?;
    Ok((device, start.elapsed()))
}

fn main() -> Result<()> {
    let (device, first) = timed_open()?;
    print!("{}", header(&device, &example_command("startup"), COMMIT));
    let cuda = device.backend() == BackendKind::Cuda;
    drop(device);
    let (_device, second) = timed_open()?;
    let ns = |d: Duration| t(d.as_nanos() as f64);
    println!("\nopening the device, wall clock:");
    if cuda {
        println!(
            "  first time in this process  {:>9}  (context, NVRTC compile of the kernel library, module load)",
            ns(first)
        );
        println!(
            "  again in the same process   {:>9}  (context retained, compiled kernels cached: the module load)",
            ns(second)
        );
        println!(
            "  the difference              {:>9}  (creating the context and compiling the kernels)",
            ns(first.saturating_sub(second))
        );
    } else {
        println!(
            "  first time in this process  {:>9}  (the virtual GPU: no driver, no compiler)",
            ns(first)
        );
        println!("  again in the same process   {:>9}", ns(second));
    }
    Ok(())
}
