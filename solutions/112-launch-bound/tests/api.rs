//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/112-launch-bound/README.md`) includes the lines
//! between the anchors, and the checks after them hold for the reference
//! solution on the virtual GPU, whose costs are the H200's.

use gpu::{Backend, Device, DeviceOptions};
use launch_bound::{Bound, Plan, Profile, crossover, profile};
use std::time::Duration;

#[test]
fn the_statements_api_sketch_runs() -> gpu::Result<()> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })?;
    let stream = device.new_stream()?;
    // ANCHOR: api
    let plan = Plan {
        warmup: 2,
        launches: 100,
    };
    let mut profiles = Vec::new();
    for micros in [0, 1, 12, 25, 50] {
        let kernel = Duration::from_micros(micros);
        // `launch` queues one kernel of this size on the stream it is given
        profiles.push(profile(&stream, plan, &mut |s| s.spin(kernel))?);
    }
    let _ = profiles[0].cpu_us; // the CPU time of one launch, µs
    let _ = profiles[0].gpu_us; // the GPU time of one kernel, µs
    let _: Bound = profiles[0].bound(); // Bound::Launch or Bound::Compute
    let from = crossover(&profiles); // the first compute-bound size's index
    // ANCHOR_END: api
    let cal = device.calibration();
    for (p, micros) in profiles.iter().zip([0u64, 1, 12, 25, 50]) {
        let gpu_ns = (micros * 1000 + cal.kernel_min_ns) as f64; // the spin and a kernel's overhead
        assert!(
            (p.cpu_us * 1e3 / cal.launch_ns as f64 - 1.0).abs() < 1e-3,
            "{p:?}"
        );
        assert!((p.gpu_us * 1e3 / gpu_ns - 1.0).abs() < 1e-3, "{p:?}");
    }
    let bounds: Vec<Bound> = profiles.iter().map(Profile::bound).collect();
    use Bound::{Compute, Launch};
    assert_eq!(bounds, [Launch, Launch, Compute, Compute, Compute]);
    assert_eq!(from, Some(2));
    Ok(())
}
