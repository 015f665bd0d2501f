//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/110-captured-step/README.md`) includes the lines
//! between the anchors, and the checks after them hold for the reference
//! solution.

use captured_step::CapturedStep;
use gpu::{Backend, Decoder, DecoderConfig, Device, DeviceOptions};
use std::time::Duration;

#[test]
fn the_statements_api_sketch_runs() -> gpu::Result<()> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })?;
    let stream = device.new_stream()?;
    let config = DecoderConfig {
        vocab: 512,
        hidden: 64,
        seed: 110,
        step_time: Duration::from_micros(200),
    };
    let decoder = Decoder::new(&stream, config)?;
    let prompts = [396, 104, 68];
    // Row s of `history` holds the tokens step s decodes from.
    let history = stream.alloc_zeros::<i32>(3 * 4)?;
    stream.copy_from_host(&prompts, history.slice(0..3))?;
    let row = |s: usize| history.slice(3 * s..3 * (s + 1));
    // ANCHOR: api
    let mut step = CapturedStep::new(&stream, &decoder, 3)?; // allocate, capture
    for s in 0..3 {
        step.step(row(s), row(s + 1))?; // copy in, replay, copy out
    }
    // ANCHOR_END: api
    let tokens = stream.to_vec(&history)?;
    for s in 0..3 {
        let want = decoder.reference_step(&tokens[3 * s..3 * (s + 1)]);
        assert_eq!(tokens[3 * (s + 1)..3 * (s + 2)], want[..], "step {s}");
    }
    Ok(())
}
