//! Where to sample: a 2 ms forward pass writes 64 × 32,000 logits; sample
//! them on the CPU (copy the logits into a `Vec`, argmax, copy the tokens
//! back) or on the GPU (an argmax kernel, only the tokens copied).
//!
//! ```text
//! cargo run --release -p workbook-benches --example sampling_where
//! ```

use gpu::Result;
use std::time::Duration;
use workbook_benches::sampling::where_to_sample;
use workbook_benches::{duration_text as t, open_example};
use workbook_commit::COMMIT;

fn main() -> Result<()> {
    let device = open_example("sampling_where", COMMIT)?;
    let forward = Duration::from_millis(2);
    where_to_sample(&device, 64, 32_000, forward, 2)?; // warm-up
    let w = where_to_sample(&device, 64, 32_000, forward, 10)?;
    println!(
        "\n64 requests × 32,000 tokens of logits ({:.1} MB a step) after a {} forward pass:",
        w.logits_bytes as f64 / 1e6,
        t(forward.as_nanos() as f64)
    );
    println!("  step, sampling on the CPU   {}", t(w.cpu_step_ns));
    println!("  step, sampling on the GPU   {}", t(w.gpu_step_ns));
    println!("  the same tokens both ways: {}", w.same_tokens);
    Ok(())
}
