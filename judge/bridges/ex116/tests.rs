#[test]
fn a_decoding_through_the_bridge_runs_steps_on_the_judge_s_decoder() {
    let (device, stream, decoder) = judge_harness::virtual_decoder();
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
    let steps = judge_harness::launches(&device, "decode_step");
    assert_eq!(steps, 3, "the steps ran on the judge's device");
}
