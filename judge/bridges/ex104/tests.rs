#[test]
fn a_server_through_the_bridge_runs_steps_on_the_judge_s_decoder() {
    let (device, compute, decoder) = judge_harness::virtual_decoder();
    let copy = device.new_stream().unwrap();
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
    let steps = judge_harness::launches(&device, "decode_step");
    assert_eq!(steps, 4, "the steps ran on the judge's device");
}
