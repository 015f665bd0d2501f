//! Launch cost against kernel time: 200 kernels of each size, ΣCPU (the
//! launch loop), ΣGPU (the kernels back to back) and the wall time, which is
//! about the larger of the two.
//!
//! ```text
//! cargo run --release -p workbook-benches --example cpu_gpu_launch_bound
//! ```

use gpu::Result;
use std::time::Duration;
use workbook_benches::{cpu_gpu, duration_text as t, open_example};
use workbook_commit::COMMIT;

fn main() -> Result<()> {
    let device = open_example("cpu_gpu_launch_bound", COMMIT)?;
    let stream = device.new_stream()?;
    cpu_gpu::pipeline(&device, &stream, Duration::ZERO, 20)?; // warm-up
    println!("\n200 kernels of each size:");
    println!(
        "{:>10}  {:>10}  {:>10}  {:>10}  {:>10}  verdict",
        "kernel", "ΣCPU", "ΣGPU", "wall", "max"
    );
    for us in [0, 2, 5, 10, 50, 200] {
        let p = cpu_gpu::pipeline(&device, &stream, Duration::from_micros(us), 200)?;
        let verdict = if p.launch_bound() {
            "launch-bound"
        } else {
            "compute-bound"
        };
        let kernel = if us == 0 {
            "empty".to_string()
        } else {
            t(p.kernel_ns)
        };
        println!(
            "{kernel:>10}  {:>10}  {:>10}  {:>10}  {:>10}  {verdict}",
            t(p.cpu_ns),
            t(p.gpu_ns),
            t(p.wall_ns),
            t(p.cpu_ns.max(p.gpu_ns))
        );
    }
    Ok(())
}
