//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/111-order-with-an-event/README.md`) includes the
//! lines between the anchors, and the checks after them hold for the
//! reference solution.

use gpu::{Backend, Device, DeviceOptions};
use order_with_an_event::handoff;
use std::time::Duration;

#[test]
fn the_statements_api_sketch_runs() -> gpu::Result<()> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })?;
    let (producer, consumer) = (device.new_stream()?, device.new_stream()?);
    let host = device.alloc_pinned::<f32>(4)?;
    host.write(&[0.0, 1.0, 2.0, 3.0])?;
    let x = consumer.alloc_zeros::<f32>(4)?;
    let y = consumer.alloc_zeros::<f32>(4)?;
    consumer.synchronize()?;
    // ANCHOR: api
    producer.spin(Duration::from_micros(100))?; // the producer is still busy
    handoff(&producer, &consumer, &host, x.slice(0..4), y.slice(0..4))?;
    let y = consumer.to_vec(&y)?; // the one read, at the end
    // ANCHOR_END: api
    assert_eq!(y, [1.0, 3.0, 5.0, 7.0]);
    assert!(device.take_races().is_empty(), "no race");
    Ok(())
}
