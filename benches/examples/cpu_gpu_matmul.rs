//! The classic matmul benchmark, with events: warm up, then time the
//! decoder step's matmul with one event pair around ten steps (a mean) and
//! with one pair per step (a median), and turn the time into FLOP/s.
//!
//! ```text
//! cargo run --release -p workbook-benches --example cpu_gpu_matmul
//! ```

use gpu::Result;
use workbook_benches::{cpu_gpu, duration_text as t, open_example};
use workbook_commit::COMMIT;

/// Rows, width of an embedding, vocabulary: a `64 × 256` by `256 × 4096` product.
const SHAPE: (usize, usize, usize) = (64, 256, 4096);
const WARMUP: usize = 3;
const REPS: usize = 10;

fn main() -> Result<()> {
    let device = open_example("cpu_gpu_matmul", COMMIT)?;
    let stream = device.new_stream()?;
    let m = cpu_gpu::matmul(&device, &stream, SHAPE, WARMUP, REPS)?;
    let (batch, hidden, vocab) = SHAPE;
    let rate = |ns: f64| format!("{:.1} GFLOP/s", m.flops / ns);
    println!(
        "\nthe decoder step as a matmul: [{batch} × {hidden}] · [{hidden} × {vocab}], then an argmax per row"
    );
    println!(
        "  {:.1} MFLOP a step (2 · {batch} · {hidden} · {vocab}); {WARMUP} warm-up steps, then {REPS} timed ones",
        m.flops / 1e6
    );
    println!(
        "  one event pair around all {REPS} (a mean)   {:>9} a step   {}",
        t(m.mean_ns),
        rate(m.mean_ns)
    );
    let s = m.per_step;
    println!(
        "  one event pair per step (the median)    {:>9} a step   {}",
        t(s.median),
        rate(s.median)
    );
    println!(
        "  one event pair per step (min – max)     {:>9} – {}",
        t(s.min),
        t(s.max)
    );
    Ok(())
}
