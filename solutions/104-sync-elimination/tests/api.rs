//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/104-sync-elimination/README.md`) includes the
//! lines between the anchors.

use gpu::{Backend, Decoder, DecoderConfig, Device, DeviceOptions};
use std::time::Duration;
use sync_elimination::{Config, Server};

#[test]
fn the_statements_api_sketch_runs() -> gpu::Result<()> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })?;
    let (compute, copy) = (device.new_stream()?, device.new_stream()?);
    let decoder_config = DecoderConfig {
        vocab: 64,
        hidden: 8,
        seed: 104,
        step_time: Duration::from_millis(2),
    };
    let eos_token = 63;
    let steps: Vec<Vec<i32>> = (0..48).map(|t| vec![t % 60; 128]).collect();
    // ANCHOR: api
    let decoder = Decoder::new(&compute, decoder_config)?;
    let mut server = Server::new(
        &decoder,
        &compute,
        &copy,
        Config {
            batch: 128, // requests
            max_steps: 48,
            log_every: 8, // K: a log line every K steps
            eos: eos_token,
            host_work: Duration::from_micros(500), // the scheduler's CPU time per step
        },
    )?;
    // One input token per request and step:
    for inputs in &steps {
        server.step(inputs)?;
    }
    let report = server.finish()?; // outputs, log lines, step times
    // ANCHOR_END: api
    assert_eq!((report.outputs.len(), report.logs.len()), (128, 6));
    assert_eq!(report.step_ms.len(), 48);
    Ok(())
}
