//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/116-step-without-syncs/README.md`) includes the
//! lines between the anchors, and the checks after them hold for the
//! reference solution.

use gpu::{Backend, Decoder, DecoderConfig, Device, DeviceOptions};
use std::time::Duration;
use step_without_syncs::{Config, Decoding};

#[test]
fn the_statements_api_sketch_runs() -> gpu::Result<()> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })?;
    let stream = device.new_stream()?;
    let decoder_config = DecoderConfig {
        vocab: 64,
        hidden: 16,
        seed: 116,
        step_time: Duration::from_micros(500),
    };
    let steps: Vec<Vec<i32>> = (0..6)
        .map(|t| (0..4).map(|r| t * 4 + r).collect())
        .collect();
    let eos_token = 7;
    // ANCHOR: api
    let decoder = Decoder::new(&stream, decoder_config)?;
    let mut decoding = Decoding::new(
        &decoder,
        &stream,
        Config {
            batch: 4, // requests
            max_steps: 6,
            eos: eos_token,
        },
    )?;
    for inputs in &steps {
        decoding.step(inputs)?; // one input token per request; only queues work
    }
    let report = decoding.finish()?; // outputs, finished requests, step times
    // ANCHOR_END: api
    for (r, output) in report.outputs.iter().enumerate() {
        let want: Vec<i32> = steps
            .iter()
            .map(|inputs| decoder.reference_step(inputs)[r])
            .collect();
        let cut = want
            .iter()
            .position(|&t| t == eos_token)
            .map_or(6, |p| p + 1);
        assert_eq!(output, &want[..cut]);
    }
    assert_eq!(report.step_ms.len(), 6);
    assert!(report.step_ms.iter().all(|&ms| (0.5..0.6).contains(&ms)));
    assert!(device.take_races().is_empty(), "no race");
    Ok(())
}
