//! What one launch of an empty kernel costs the CPU, and how much of that is
//! the `gpu` crate's bookkeeping: cudarc's result layer, cudarc's
//! `launch_builder`, and the crate's `spin(0)` with its trace and race
//! checker on and off, 120 rounds of 200 launches each, pair by pair; three
//! runs of that, one after the other, with the ratio the book quotes per run.
//!
//! ```text
//! cargo run --release -p workbook-benches --example launch_overhead
//! GPU_BACKEND=virtual cargo run --release -p workbook-benches --example launch_overhead
//! ```
//!
//! On the virtual GPU only the crate's two ways run, timed on this
//! machine's real clock: their difference is the cost of the trace and the
//! race checker, which are the same code on both backends.

use gpu::{Backend, BackendKind, LaunchBench, Result, measure_launches};
use workbook_benches::{example_command, header, launch_overhead};
use workbook_commit::COMMIT;

fn main() -> Result<()> {
    let device = gpu::Device::open(Backend::Auto)?;
    let backend = match device.backend() {
        BackendKind::Cuda => Backend::Cuda,
        BackendKind::Virtual => Backend::Virtual,
    };
    let bench = LaunchBench {
        backend,
        rounds: launch_overhead::ROUNDS,
        ..LaunchBench::default()
    };
    let runs = (0..launch_overhead::RUNS)
        .map(|_| measure_launches(&bench))
        .collect::<Result<Vec<_>>>()?;
    let header = header(&device, &example_command("launch_overhead"), COMMIT);
    print!("{}", launch_overhead::report(&header, &runs));
    Ok(())
}
