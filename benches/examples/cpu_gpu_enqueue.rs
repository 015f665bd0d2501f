//! A launch only queues work: the CPU time of launching 5 ms kernels, the
//! GPU time they take, and the wait at the end.
//!
//! ```text
//! cargo run --release -p workbook-benches --example cpu_gpu_enqueue
//! ```

use gpu::Result;
use std::time::Duration;
use workbook_benches::{cpu_gpu, duration_text as t, open_example};
use workbook_commit::COMMIT;

fn main() -> Result<()> {
    let device = open_example("cpu_gpu_enqueue", COMMIT)?;
    let stream = device.new_stream()?;
    cpu_gpu::enqueue(&device, &stream, Duration::from_micros(10), 3)?; // warm-up
    let e = cpu_gpu::enqueue(&device, &stream, Duration::from_millis(5), 10)?;
    println!("\n10 launches of a 5 ms kernel:");
    println!(
        "  CPU time of one launch      {} (min {}, max {})",
        t(e.launch.median),
        t(e.launch.min),
        t(e.launch.max)
    );
    println!("  CPU time of the whole loop  {}", t(e.loop_ns));
    println!("  GPU time (events)           {}", t(e.gpu_ns));
    println!("  then synchronize blocked    {}", t(e.sync_ns));
    Ok(())
}
