#[test]
fn a_captured_step_through_the_bridge_replays_on_the_judge_s_device() {
    let (device, stream, decoder) = judge_harness::virtual_decoder();
    let history = stream.alloc_zeros::<i32>(6).unwrap();
    stream.copy_from_host(&[1, 2], history.slice(0..2)).unwrap();
    judge_harness::loopback(serve::serve, || {
        let mut step = CapturedStep::new(&stream, &decoder, 2).unwrap();
        step.step(history.slice(0..2), history.slice(2..4)).unwrap();
        step.step(history.slice(2..4), history.slice(4..6)).unwrap();
    });
    let tokens = stream.to_vec(&history).unwrap();
    let first = decoder.reference_step(&[1, 2]);
    assert_eq!(tokens[2..4], first[..]);
    assert_eq!(tokens[4..6], decoder.reference_step(&first)[..]);
    let replays = judge_harness::calls(&device, gpu::OpKind::GraphLaunch);
    assert_eq!(replays, 2, "two replays, on the judge's device");
}
