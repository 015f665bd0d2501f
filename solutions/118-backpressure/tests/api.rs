//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/118-backpressure/README.md`) includes the lines
//! between the anchors, and the checks after them hold for the reference
//! solution on the virtual GPU.

use backpressure::submit;
use gpu::{Backend, Device, DeviceOptions, Stream};
use std::time::Duration;

/// A stand-in for a model: each decode step is two kernels of 1 ms.
struct Model;

impl Model {
    fn step(&self, stream: &Stream, _k: usize) -> gpu::Result<()> {
        stream.spin(Duration::from_millis(1))?;
        stream.spin(Duration::from_millis(1))
    }
}

#[test]
fn the_statements_api_sketch_runs() -> gpu::Result<()> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })?;
    let stream = device.new_stream()?;
    let model = Model;
    let (steps, depth) = (8, 2);
    // ANCHOR: api
    // `step` queues decode step `k` on `s`; at most `depth` steps in flight
    submit(&stream, steps, depth, &mut |s, k| model.step(s, k))?;
    // ANCHOR_END: api
    assert!(stream.query()?, "every step finished when `submit` returns");
    let waits = device
        .trace()
        .entries
        .iter()
        .filter(|e| e.blocking.is_some())
        .count();
    assert_eq!(
        waits,
        steps - depth + 1,
        "one wait per step past the depth, one at the end"
    );
    Ok(())
}
