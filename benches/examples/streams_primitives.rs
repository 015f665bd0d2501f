//! What each sync primitive costs the CPU: stream a runs 10 ms, records
//! `mid`, runs 10 ms more; stream b runs 30 ms; then one call is timed.
//!
//! ```text
//! cargo run --release -p workbook-benches --example streams_primitives
//! ```

use gpu::Result;
use workbook_benches::{duration_text, open_example, streams};
use workbook_commit::COMMIT;

fn main() -> Result<()> {
    let device = open_example("streams_primitives", COMMIT)?;
    streams::primitives(&device)?; // warm-up
    println!("\nCPU time of each call (a: 10 ms, mid, 10 ms; b: 30 ms):");
    for p in streams::primitives(&device)? {
        println!("  {:<22} {:>9}", p.name, duration_text(p.cpu_ns));
    }
    Ok(())
}
