//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/115-pinned-token-slots/README.md`) includes the
//! lines between the anchors, and the checks after them hold for the
//! reference solution.

use gpu::{Backend, Decoder, DecoderConfig, Device, DeviceOptions};
use std::time::Duration;
use token_slots::TokenSlots;

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
    let prompts = [396, 104, 68];
    let tokens = [stream.alloc_zeros::<i32>(3)?, stream.alloc_zeros::<i32>(3)?];
    stream.copy_from_host(&prompts, &tokens[0])?;
    stream.decode_step(&decoder, &tokens[0], &tokens[1])?;
    stream.decode_step(&decoder, &tokens[1], &tokens[0])?;
    // ANCHOR: api
    let mut slots = TokenSlots::new(&stream, 3)?; // two pinned slots of 3 tokens, two events
    slots.queue(&tokens[1])?; // step 0's tokens: a copy into slot 0, then its event
    slots.queue(&tokens[0])?; // step 1's tokens: slot 1, queued behind step 1
    let step_0 = slots.read()?; // waits for slot 0's event only, then reads slot 0
    let step_1 = slots.read()?; // then slot 1
    // ANCHOR_END: api
    let first = decoder.reference_step(&prompts);
    assert_eq!(step_0, first);
    assert_eq!(step_1, decoder.reference_step(&first));
    assert!(device.races().is_empty());
    Ok(())
}

#[test]
fn generate_returns_each_prompt_s_greedy_tokens() -> gpu::Result<()> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })?;
    let stream = device.new_stream()?;
    let config = DecoderConfig {
        vocab: 64,
        hidden: 16,
        seed: 115,
        step_time: Duration::from_millis(1),
    };
    let decoder = Decoder::new(&stream, config)?;
    let tokens = token_slots::generate(&stream, &decoder, &[5, 9], 4, Duration::ZERO)?;
    for (prompt, list) in [5, 9].iter().zip(&tokens) {
        let mut last = *prompt;
        assert_eq!(list.len(), 4);
        for &token in list {
            assert_eq!(token, decoder.reference_step(&[last])[0]);
            last = token;
        }
    }
    assert!(device.races().is_empty());
    Ok(())
}
