//! The bridge against the reference solution, with the agent in a thread.

use super::*;
use gpu::DecoderConfig;

#[test]
fn generate_and_a_sampler_through_the_bridge_decode_on_the_judge_s_decoder() {
    let device = gpu::Device::open(gpu::Backend::Virtual).unwrap();
    let stream = device.new_stream().unwrap();
    let config = DecoderConfig {
        vocab: 16,
        hidden: 8,
        seed: 2,
        step_time: Duration::from_millis(1),
    };
    let decoder = Decoder::new(&stream, config).unwrap();
    let batch = Batch {
        requests: vec![
            Request {
                prompt: 1,
                max_new_tokens: 3,
            },
            Request {
                prompt: 2,
                max_new_tokens: 2,
            },
        ],
        eos: -1,
    };
    let (generated, stepped) = judge_harness::loopback(serve::serve, || {
        let generated = generate(&stream, &decoder, &batch, Duration::from_micros(10)).unwrap();
        let mut sampler = Sampler::new(&stream, &decoder, &batch).unwrap();
        while !sampler.is_finished() {
            sampler.submit().unwrap();
            sampler.process().unwrap();
        }
        (generated, sampler.into_outputs())
    });
    assert_eq!(generated, stepped);
    assert_eq!(generated.iter().map(Vec::len).collect::<Vec<_>>(), [3, 2]);
    assert_eq!(generated[0][0], decoder.reference_step(&[1, 2])[0]);
}
