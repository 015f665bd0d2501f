//! The layout check: the whole snapshot after a scripted workload of three
//! streams, against the judge's insta snapshots `layout_pending` (with a
//! block pending on stream 2) and `layout_after_the_stream_finished`.

use super::support::{S0, S1, S2, Size, free, malloc, mb, sim};
use caching_allocator::SegmentInfo;
use judge_harness::{Ctx, Failure, ensure_eq, snapshot};

pub(super) fn layout_after_a_scripted_workload(ctx: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let x = malloc(&mut a, 1000, S0)?;
    let _y = malloc(&mut a, mb(5), S0)?;
    let _z = malloc(&mut a, 300, S1)?;
    let _w = malloc(&mut a, mb(12), S1)?;
    let v = malloc(&mut a, 2000, S0)?;
    a.record_stream(&v, S2);
    free(&mut a, x)?;
    free(&mut a, v)?;
    let script = "malloc(1000, s0), malloc(5 MiB, s0), malloc(300, s1), malloc(12 MiB, s1), v = malloc(2000, s0), record_stream(v, s2), free the first and v";
    snapshot!(
        ctx,
        "layout_pending",
        render(&a.snapshot()),
        &format!("the snapshot after {script}"),
    )?;
    a.driver_mut().finish(S2);
    malloc(&mut a, 1024, S0)?;
    snapshot!(
        ctx,
        "layout_after_the_stream_finished",
        render(&a.snapshot()),
        "after stream 2 finishes and malloc(1 KiB, s0): the pending block merged with both free neighbours before the search",
    )?;
    ensure_eq(
        (Size(a.memory_allocated()), Size(a.memory_reserved())),
        (Size(1024 + mb(5) + 512 + mb(12)), Size(mb(36))),
        "(memory_allocated, memory_reserved) at the end",
    )
}

/// One line per segment and one per block, addresses in hex.
fn render(segments: &[SegmentInfo]) -> String {
    let mut out = String::new();
    for s in segments {
        out += &format!(
            "segment {:#010x} {:>9} bytes  stream {}  {:?}\n",
            s.base, s.size, s.stream.0, s.pool
        );
        for b in &s.blocks {
            out += &format!(
                "  block {:#010x} {:>9} bytes  {:?}\n",
                b.addr, b.size, b.state
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::tests::passes;

    #[test]
    fn the_solution_matches_the_layout_snapshots() {
        passes(101, "layout_after_a_scripted_workload");
    }
}
