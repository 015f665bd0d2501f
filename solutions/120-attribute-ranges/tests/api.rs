//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/120-attribute-ranges/README.md`) includes the
//! lines between the anchors, and the checks after them hold for the
//! reference solution on the virtual GPU.

use attribute_ranges::{RangeTime, attribute};
use gpu::{Backend, Device, DeviceOptions};
use std::time::Duration;

#[test]
fn the_statements_api_sketch_runs() -> gpu::Result<()> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })?;
    let (main, side) = (device.new_stream()?, device.new_stream()?);
    let us = Duration::from_micros;
    // ANCHOR: api
    {
        let _layer = device.range("layer"); // range 0
        side.spin(us(300))?; // the layer's own work, on the side stream
        {
            let _attention = device.range("attention"); // range 1, nested
            main.spin(us(100))?; // runs beside the side stream's kernel
            main.spin(us(100))?;
        }
        let _mlp = device.range("mlp"); // range 2, nested
        main.spin(us(200))?; // runs long after the CPU has left `mlp`
    }
    device.synchronize()?;

    let trace = device.trace(); // entries and ranges, as the judge hands them over
    let table: Vec<RangeTime> = attribute(&trace); // one row per range of `trace.ranges`
    // ANCHOR_END: api
    let busy = |i: usize| {
        let spans = trace
            .range_entries(&trace.ranges[i])
            .iter()
            .filter_map(|e| e.gpu);
        spans.map(|g| g.end_ns - g.start_ns).sum::<u64>()
    };
    let (attention, mlp) = (table[1], table[2]);
    assert_eq!((attention.gpu_ns, mlp.gpu_ns), (busy(1), busy(2)));
    assert_eq!(table[0].gpu_self_ns, busy(0) - busy(1) - busy(2));
    assert!(table[0].gpu_ns < busy(0), "overlap counted once");
    let less_children = table[0]
        .gpu_ns
        .saturating_sub(attention.gpu_ns + mlp.gpu_ns);
    assert!(
        less_children < table[0].gpu_self_ns,
        "not inclusive less children"
    );
    let cpu = |i: usize| trace.ranges[i].cpu_ns();
    assert_eq!(table[0].cpu_self_ns, cpu(0) - cpu(1) - cpu(2));
    assert_eq!(mlp.cpu_ns, mlp.cpu_self_ns);
    Ok(())
}
