//! The bridge against the reference solution, with the agent in a thread.

use super::*;
use gpu::DecoderConfig;
use std::time::Duration;

#[test]
fn a_decoding_through_the_bridge_runs_steps_on_the_judge_s_decoder() {
    let device = gpu::Device::open(gpu::Backend::Virtual).unwrap();
    let stream = device.new_stream().unwrap();
    let config = DecoderConfig {
        vocab: 16,
        hidden: 8,
        seed: 1,
        step_time: Duration::from_millis(1),
    };
    let decoder = Decoder::new(&stream, config).unwrap();
    let tokens = vec![1, 2, 3, 4];
    let expected = decoder.reference_step(&tokens);
    let report = judge_harness::loopback(serve::serve, || {
        let config = Config {
            batch: 4,
            max_steps: 3,
            eos: -7,
        };
        let mut decoding = Decoding::new(&decoder, &stream, config).unwrap();
        for _ in 0..3 {
            decoding.step(&tokens).unwrap();
        }
        decoding.finish().unwrap()
    });
    assert_eq!(report.step_ms.len(), 3);
    assert_eq!(report.finished, 0);
    let first: Vec<i32> = report.outputs.iter().map(|o| o[0]).collect();
    assert_eq!(first, expected);
    let steps = device
        .trace()
        .entries
        .iter()
        .filter(|e| e.name == "decode_step")
        .count();
    assert_eq!(steps, 3, "the steps ran on the judge's device");
}
