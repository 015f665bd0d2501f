//! The naive decode loop against the overlapped one (exercise 102's
//! solution): the steady-state step time for three mixes of GPU and CPU
//! time per step, against GPU + CPU and max(GPU, CPU).
//!
//! ```text
//! cargo run --release -p workbook-benches --example sampling_overlap
//! ```

use gpu::Result;
use std::time::Duration;
use workbook_benches::sampling::{Loop, run, steady_step_ns};
use workbook_benches::{duration_text as t, open_example};
use workbook_commit::COMMIT;

fn main() -> Result<()> {
    let device = open_example("sampling_overlap", COMMIT)?;
    let us = Duration::from_micros;
    run(&device, Loop::Overlapped, us(100), us(100), 6)?; // warm-up
    println!("\n8 requests, 24 tokens each; steady-state step time:");
    println!(
        "{:>8} {:>8}  {:>9} {:>9}  {:>9} {:>9}  efficiency naive / overlapped",
        "GPU", "CPU", "GPU+CPU", "max", "naive", "overlap"
    );
    for (gpu, cpu) in [(2000, 1500), (1000, 1500), (2000, 200)] {
        let (gpu, cpu) = (us(gpu), us(cpu));
        let naive = steady_step_ns(&run(&device, Loop::Naive, gpu, cpu, 24)?);
        let over = steady_step_ns(&run(&device, Loop::Overlapped, gpu, cpu, 24)?);
        let (g, c) = (gpu.as_nanos() as f64, cpu.as_nanos() as f64);
        let max = g.max(c);
        println!(
            "{:>8} {:>8}  {:>9} {:>9}  {:>9} {:>9}  {:.2} / {:.2}",
            t(g),
            t(c),
            t(g + c),
            t(max),
            t(naive),
            t(over),
            max / naive,
            max / over
        );
    }
    Ok(())
}
