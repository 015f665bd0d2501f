//! Copy/compute overlap: 8 chunks of 16 MiB copied to the device and summed,
//! on one stream, on a copy and a compute stream from pinned memory, and the
//! same from pageable memory.
//!
//! ```text
//! cargo run --release -p workbook-benches --example streams_copy_overlap
//! ```

use gpu::Result;
use workbook_benches::{duration_text as t, open_example, streams};

fn main() -> Result<()> {
    let device = open_example("streams_copy_overlap")?;
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
    Ok(())
}
