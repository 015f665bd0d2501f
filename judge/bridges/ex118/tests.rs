#[test]
fn submit_through_the_bridge_runs_the_steps_it_is_given() {
    let device = gpu::Device::open(gpu::Backend::Virtual).unwrap();
    let stream = device.new_stream().unwrap();
    let mut seen = Vec::new();
    judge_harness::loopback(serve::serve, || {
        let mut step = |s: &Stream, k: usize| {
            seen.push(k);
            s.spin(Duration::from_millis(2))
        };
        submit(&stream, 4, 2, &mut step).unwrap()
    });
    assert_eq!(seen, vec![0, 1, 2, 3], "each step once, in order");
    let launches = judge_harness::launches(&device, "spin");
    assert_eq!(launches, 4, "the steps ran on the judge's device");
}
