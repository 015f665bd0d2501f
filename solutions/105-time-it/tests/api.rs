//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/105-time-it/README.md`) includes the lines between
//! the anchors, and the checks after them hold for the reference solution.

use gpu::{Backend, Device, DeviceOptions, Stream};
use std::time::Duration;
use time_it::{Matmul, Plan, measure};

/// A stand-in for a model: each forward pass is 2 ms of GPU time.
struct Model;

impl Model {
    fn forward(&self, stream: &Stream) -> gpu::Result<()> {
        stream.spin(Duration::from_millis(2))
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
    // ANCHOR: api
    let timing = measure(
        &stream,
        Plan { warmup: 2, reps: 9 },
        Matmul {
            m: 4096,
            n: 4096,
            k: 4096,
        },
        &mut |s| model.forward(s), // one run: queues GPU work on `s`, may spend CPU time too
    )?;
    let _ = &timing.samples_ms; // the GPU time of each timed run, in order
    let _ = timing.median_ms; // their median
    let _ = timing.flops_per_s; // the throughput at the median
    // ANCHOR_END: api
    assert_eq!(timing.samples_ms.len(), 9);
    assert!(
        (timing.median_ms - 2.0).abs() < 0.04,
        "{}",
        timing.median_ms
    );
    let flops = 2.0 * 4096f64.powi(3);
    assert!((timing.flops_per_s * timing.median_ms / 1e3 / flops - 1.0).abs() < 1e-9);
    Ok(())
}
