//! Timing GPU work: a CPU timer around the launches, a CPU timer between two
//! synchronizes, and events; then the first launches of a kernel.
//!
//! ```text
//! cargo run --release -p workbook-benches --example cpu_gpu_timing
//! ```

use gpu::Result;
use std::time::Duration;
use workbook_benches::{cpu_gpu, duration_text as t, open_example};
use workbook_commit::COMMIT;

fn main() -> Result<()> {
    let device = open_example("cpu_gpu_timing", COMMIT)?;
    let stream = device.new_stream()?;
    let first = cpu_gpu::first_launches(&device, &stream)?;
    let timings = cpu_gpu::timing(&device, &stream, Duration::from_millis(2), 10)?;
    println!(
        "\n10 kernels of 2 ms ({} of GPU work):",
        t(timings.requested_ns)
    );
    println!(
        "  CPU timer around the launches    {}",
        t(timings.cpu_launches_ns)
    );
    println!(
        "  CPU timer, synchronize both ends {}",
        t(timings.cpu_synced_ns)
    );
    println!(
        "  events                           {}",
        t(timings.events_ns)
    );
    let first: Vec<String> = first.iter().map(|&ns| t(ns)).collect();
    println!(
        "\nCPU time of the first four launches of a kernel never run before: {}",
        first.join(", ")
    );
    Ok(())
}
