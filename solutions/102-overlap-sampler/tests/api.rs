//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/102-overlap-sampler/README.md`) includes the
//! lines between the anchors.

use gpu::{Backend, Decoder, DecoderConfig, Device, DeviceOptions};
use overlap_sampler::{Batch, Request, Sampler};
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
        vocab: 256,
        hidden: 32,
        seed: 102,
        step_time: Duration::from_millis(2),
    };
    let decoder = Decoder::new(&stream, config)?;
    let requests = (0..4)
        .map(|i| Request {
            prompt: 3 + 50 * i,
            max_new_tokens: 1,
        })
        .collect();
    let batch = Batch { requests, eos: 256 };
    // ANCHOR: api
    let mut sampler = Sampler::new(&stream, &decoder, &batch)?; // setup: buffers, prompts
    sampler.submit()?; // queue the next step on the GPU
    sampler.process()?; // the oldest step not processed yet: append tokens, finish requests
    let done = sampler.is_finished();
    let outputs = sampler.into_outputs(); // one Vec of tokens per request
    // ANCHOR_END: api
    // One token each, and `max_new_tokens` is 1: every request is done.
    assert!(done);
    assert!(
        outputs.iter().all(|tokens| tokens.len() == 1),
        "{outputs:?}"
    );
    Ok(())
}
