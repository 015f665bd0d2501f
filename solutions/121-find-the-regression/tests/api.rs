//! The two sketches of the exercise's statement, compiled and run: the
//! statement (`exercises/121-find-the-regression/README.md`) mirrors the
//! lines between the anchors, and they hold for the reference solution on
//! the virtual GPU.

use find_the_regression::{COLS, Engine, ROWS, Regression, diagnose};
use gpu::{Backend, Device, DeviceOptions, PinnedBuffer, Trace};

/// A batch of `ROWS × COLS` values `value` in pinned memory.
fn batch(device: &Device, value: f32) -> gpu::Result<PinnedBuffer<f32>> {
    let batch = device.alloc_pinned::<f32>(ROWS * COLS)?;
    batch.write(&vec![value; ROWS * COLS])?;
    Ok(batch)
}

#[test]
fn the_statements_sketches_run() -> gpu::Result<()> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })?;
    let stream = device.new_stream()?;
    let first_batch = batch(&device, 1.0)?;
    let batches = [batch(&device, 2.0)?, batch(&device, 3.0)?];
    // ANCHOR: engine
    let mut engine = Engine::new(&stream, &first_batch)?; // pinned, ROWS × COLS
    for next in &batches {
        let tokens = engine.step(next)?; // one token per request
        assert_eq!(tokens.len(), ROWS);
    }
    // ANCHOR_END: engine
    let step = |engine: &mut Engine| -> gpu::Result<Trace> {
        device.clear_trace();
        engine.step(&batches[0])?;
        Ok(device.trace())
    };
    let (before, after) = (step(&mut engine)?, step(&mut engine)?);
    // ANCHOR: diagnose
    let regression: Regression = diagnose(&before, &after);
    // ANCHOR_END: diagnose
    println!("two profiles of the same step: {regression:?}");
    Ok(())
}
