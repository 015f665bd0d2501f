//! Copy/compute overlap: 8 chunks of 16 MiB copied to the device and summed,
//! on one stream, on a copy and a compute stream from pinned memory, and the
//! same from pageable memory; then, from the trace's GPU start and end
//! times, what each copy and each sum of the two-stream run took on the GPU,
//! and which of the two is the longer side.
//!
//! ```text
//! cargo run --release -p workbook-benches --example streams_copy_overlap
//! ```

use gpu::Result;
use workbook_benches::streams::{self, GpuTimes, Longer};
use workbook_benches::{duration_text as t, open_timed_example};
use workbook_commit::COMMIT;

fn main() -> Result<()> {
    let device = open_timed_example("streams_copy_overlap", COMMIT)?;
    streams::overlap(&device, 2)?; // warm-up
    let o = streams::overlap(&device, 8)?;
    let ok = o.sums.iter().all(|&s| s == streams::CHUNK as f32);
    println!(
        "\n8 chunks of 16 MiB, each copied to the device and summed ({} of compute each):",
        t(streams::COMPUTE.as_nanos() as f64)
    );
    println!("  one stream, pinned source           {}", t(o.serial_ns));
    println!(
        "  copy + compute streams, pinned      {}",
        t(o.overlapped_ns)
    );
    println!(
        "  copy + compute streams, pageable    {}  (CPU blocked {} inside the copy calls)",
        t(o.pageable_ns),
        t(o.pageable_copy_cpu_ns)
    );
    println!("  sums correct: {ok}");
    match o.gpu {
        Some(gpu) => print_gpu_times(&gpu),
        None => println!("\nthe trace has no GPU times"),
    }
    Ok(())
}

/// Each copy's and each sum's GPU time, and the longer side.
fn print_gpu_times(gpu: &GpuTimes) {
    println!(
        "\nOn the GPU, copy + compute streams, pinned (from the trace's start and end times; medians of 8):"
    );
    println!("  a copy of a chunk to the device     {}", t(gpu.copy_ns));
    println!("  a sum of a chunk                    {}", t(gpu.sum_ns));
    let ratio = gpu.sum_ns / gpu.copy_ns;
    let longer = match gpu.longer() {
        Longer::Sums => format!("the sums (a sum takes {ratio:.2} times a copy)"),
        Longer::Copies => format!("the copies (a copy takes {:.2} times a sum)", 1.0 / ratio),
        Longer::Neither => {
            format!("neither, they are within a tenth (a sum takes {ratio:.2} times a copy)")
        }
    };
    println!("  the longer side: {longer}");
}
