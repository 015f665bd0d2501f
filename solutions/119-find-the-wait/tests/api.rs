//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/119-find-the-wait/README.md`) includes the lines
//! between the anchors, and the checks after them hold for the reference
//! solution on the virtual GPU.

use find_the_wait::{Wait, WaitKind, waits};
use gpu::{Backend, Device, DeviceOptions};
use std::time::Duration;

#[test]
fn the_statements_api_sketch_runs() -> gpu::Result<()> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })?;
    let stream = device.new_stream()?;
    let logits = stream.alloc_zeros::<f32>(1024)?;
    let us = Duration::from_micros;
    // ANCHOR: api
    let first = device.trace_mark(); // the seq of the step's first call
    stream.spin(us(800))?; // a kernel of 800 µs: queued
    stream.to_vec(&logits)?; // waits for the kernel: a wait
    stream.spin(us(800))?;
    device.host_work(us(1000)); // the CPU's own work, longer than the kernel
    stream.synchronize()?; // finds the GPU done: no wait

    let mut trace = device.trace(); // the step's profile, as the judge hands it over
    trace.entries.retain(|e| e.seq >= first);
    trace.entries.iter_mut().for_each(|e| e.blocking = None);
    let found: Vec<Wait> = waits(&trace);
    // ANCHOR_END: api
    let expected = Wait {
        seq: first + 1,
        kind: WaitKind::PageableDownload,
    };
    assert_eq!(found, [expected]);
    Ok(())
}
