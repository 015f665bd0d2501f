//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/114-one-stream-free-list/README.md`) includes the
//! lines between the anchors, and the checks after them hold for the
//! reference solution.

use gpu::{Backend, Device, DeviceOptions};
use std::time::Duration;
use stream_free_list::StreamAllocator;

#[test]
fn the_statements_api_sketch_runs() -> gpu::Result<()> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })?;
    let (owner, side) = (device.new_stream()?, device.new_stream()?);
    let out = side.alloc_zeros::<f32>(1)?;
    // ANCHOR: api
    let mut alloc = StreamAllocator::new(&owner); // blocks for work on `owner`
    let a = alloc.malloc(1 << 20)?; // a new 1 MiB segment
    let a_addr = a.addr();
    alloc.free(a)?; // free at once: `owner`'s later work runs after its earlier
    let mut b = alloc.malloc(1 << 20)?; // the same block again, no new segment
    assert_eq!(b.addr(), a_addr);
    let x = device.view::<f32>(b.addr(), b.bytes() / 4)?;
    owner.fill(x, 1.0)?;
    side.wait_event(&owner.record_event()?)?;
    side.sum_after(Duration::from_millis(20), x, &out)?; // `side` reads it too
    alloc.record_stream(&mut b, &side); // so note `side`
    alloc.free(b)?; // pending: an event recorded on `side`, now
    let c = alloc.malloc(1 << 20)?; // `side` still reads `b`: a new segment
    assert_ne!(c.addr(), a_addr);
    side.synchronize()?; // (the test waits; the allocator never does)
    let d = alloc.malloc(1 << 20)?; // `b`'s event completed: its memory again
    assert_eq!(d.addr(), a_addr);
    // ANCHOR_END: api
    owner.fill(device.view::<f32>(d.addr(), 1 << 18)?, 999.0)?;
    assert_eq!(side.to_vec(&out)?, [(1 << 18) as f32]);
    assert!(device.take_races().is_empty(), "no race");
    drop((c, d, alloc));
    Ok(())
}
