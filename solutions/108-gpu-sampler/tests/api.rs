//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/108-gpu-sampler/README.md`) includes the lines
//! between the anchors, and the checks after them hold for the reference
//! solution.

use gpu::{Backend, Decoder, DecoderConfig, Device, DeviceOptions};
use gpu_sampler::generate;
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
        seed: 102,
        step_time: Duration::from_millis(2),
    };
    let decoder = Decoder::new(&stream, config)?;
    // ANCHOR: api
    let prompts = [396, 104, 68]; // the last token of each request's prompt
    let tokens = generate(&stream, &decoder, &prompts, 8)?; // 8 steps of the decoder
    assert_eq!(tokens.len(), 3); // one list per prompt,
    assert!(tokens.iter().all(|t| t.len() == 8)); // of 8 tokens each
    // ANCHOR_END: api
    // Each token is the one the decoder's reference picks after the last.
    for (prompt, tokens) in prompts.iter().zip(&tokens) {
        let mut last = *prompt;
        for &token in tokens {
            assert_eq!(token, decoder.reference_step(&[last])[0]);
            last = token;
        }
    }
    Ok(())
}
