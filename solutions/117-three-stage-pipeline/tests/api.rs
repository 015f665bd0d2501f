//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/117-three-stage-pipeline/README.md`) includes the
//! lines between the anchors, and the checks after them hold for the
//! reference solution.

use gpu::{Backend, Device, DeviceOptions};
use pipeline::{Layer, Streams, run};
use std::time::Duration;

#[test]
fn the_statements_api_sketch_runs() -> gpu::Result<()> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })?;
    let (copy_in, compute, copy_out) = (
        device.new_stream()?,
        device.new_stream()?,
        device.new_stream()?,
    );
    let (mut chunks, mut outputs) = (Vec::new(), Vec::new());
    for k in 0..3 {
        let chunk = device.alloc_pinned::<f32>(256)?;
        chunk.write(&[k as f32; 256])?;
        chunks.push(chunk);
        outputs.push(device.alloc_pinned::<f32>(256)?);
    }
    // ANCHOR: api
    let layer = Layer {
        step: Duration::from_micros(80),
    };
    let streams = Streams {
        copy_in: &copy_in,
        compute: &compute,
        copy_out: &copy_out,
    };
    let results = run(&layer, &chunks, &outputs, streams)?; // 2 x + 1 for each chunk
    // ANCHOR_END: api
    assert_eq!(results, [vec![1.0; 256], vec![3.0; 256], vec![5.0; 256]]);
    assert!(device.races().is_empty(), "{:?}", device.races());
    Ok(())
}
