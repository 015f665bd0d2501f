//! The bridge against the reference solution, with the agent in a thread.

use super::*;
use gpu::DecoderConfig;

#[test]
fn a_server_through_the_bridge_runs_steps_on_the_judge_s_decoder() {
    let device = gpu::Device::open(gpu::Backend::Virtual).unwrap();
    let (compute, copy) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let config = DecoderConfig {
        vocab: 16,
        hidden: 8,
        seed: 1,
        step_time: Duration::from_millis(1),
    };
    let decoder = Decoder::new(&compute, config).unwrap();
    let tokens = vec![1, 2, 3, 4];
    let expected = decoder.reference_step(&tokens);
    let report = judge_harness::loopback(serve::serve, || {
        let config = Config {
            batch: 4,
            max_steps: 4,
            log_every: 2,
            eos: -7,
            host_work: Duration::from_micros(10),
        };
        let mut server = Server::new(&decoder, &compute, &copy, config).unwrap();
        for _ in 0..4 {
            server.step(&tokens).unwrap();
        }
        server.finish().unwrap()
    });
    assert_eq!(report.logs.len(), 2);
    assert_eq!(report.step_ms.len(), 4);
    let first: Vec<i32> = report.outputs.iter().map(|o| o[0]).collect();
    assert_eq!(first, expected);
    let steps = device
        .trace()
        .entries
        .iter()
        .filter(|e| e.name == "decode_step")
        .count();
    assert_eq!(steps, 4, "the steps ran on the judge's device");
}
