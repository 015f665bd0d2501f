//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/106-copy-stream-prefetch/README.md`) includes the
//! lines between the anchors, and the checks after them hold for the
//! reference solution.

use gpu::{Backend, Device, DeviceOptions};
use prefetch::{Model, run};
use std::time::Duration;

#[test]
fn the_statements_api_sketch_runs() -> gpu::Result<()> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })?;
    let (copy, compute) = (device.new_stream()?, device.new_stream()?);
    let mut batches = Vec::new();
    for i in 0..3 {
        let batch = device.alloc_pinned::<f32>(256)?;
        batch.write(&[i as f32; 256])?;
        batches.push(batch);
    }
    // ANCHOR: api
    let model = Model {
        step: Duration::from_micros(600),
    };
    let outputs = run(&model, &batches, &copy, &compute)?; // one output per batch
    // ANCHOR_END: api
    assert_eq!(outputs, [0.0, 256.0, 512.0]);
    Ok(())
}
