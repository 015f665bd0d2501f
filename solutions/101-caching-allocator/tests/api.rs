//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/101-caching-allocator/README.md`) includes the
//! lines between the anchors, and the checks after them hold for the
//! reference solution.

use caching_allocator::{BlockState, CachingAllocator, SimDriver, StreamId};

#[test]
fn the_statements_api_sketch_runs() -> Result<(), Box<dyn std::error::Error>> {
    // ANCHOR: api
    let mut alloc = CachingAllocator::new(SimDriver::new(64 << 20)); // a 64 MiB device
    let a = alloc.malloc(1000, StreamId(0))?; // rounded to 512-byte multiples
    assert_eq!((a.addr(), a.size()), (0, 1024));
    alloc.record_stream(&a, StreamId(1)); // stream 1 also uses it
    alloc.free(a)?; // pending until stream 1 is done
    alloc.driver_mut().finish(StreamId(1)); // the simulated stream 1 finishes
    let snapshot = alloc.snapshot(); // segments and blocks, by address
    let stats = alloc.stats(); // allocated, reserved, active, peaks, ...
    alloc.empty_cache(); // give wholly free segments back
    // ANCHOR_END: api
    // Completion is noticed at the next `malloc` or `empty_cache`: the block
    // was still pending in the snapshot.
    assert_eq!(snapshot[0].blocks[0].state, BlockState::PendingFree);
    assert_eq!((stats.allocated_bytes, stats.reserved_bytes), (0, 2 << 20));
    assert_eq!(alloc.memory_reserved(), 0);
    Ok(())
}
