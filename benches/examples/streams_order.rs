//! Order within a stream, none across: a second stream reads a buffer
//! before the first stream's fill lands, unless an event orders them.
//!
//! ```text
//! cargo run --release -p workbook-benches --example streams_order
//! ```

use gpu::Result;
use workbook_benches::{open_example, streams};
use workbook_commit::COMMIT;

fn main() -> Result<()> {
    let device = open_example("streams_order", COMMIT)?;
    let o = streams::order(&device)?;
    println!("\nsum of x after fill(x, 2.0) behind a 5 ms spin on stream a (expected 2048):");
    println!("  read on stream a itself         {}", o.same_stream);
    println!("  read on stream b, no event      {}", o.no_event);
    println!("  read on stream b after an event {}", o.with_event);
    println!("  races reported without the event: {}", o.races);
    Ok(())
}
