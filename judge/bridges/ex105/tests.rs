#[test]
fn measure_through_the_bridge_times_the_runs_it_is_given() {
    let device = gpu::Device::open(gpu::Backend::Virtual).unwrap();
    let stream = device.new_stream().unwrap();
    let mut runs = 0;
    let timing = judge_harness::loopback(serve::serve, || {
        let mut run = |s: &Stream| {
            runs += 1;
            s.spin(Duration::from_millis(2))
        };
        let plan = Plan { warmup: 1, reps: 3 };
        let work = Matmul { m: 2, n: 2, k: 2 };
        measure(&stream, plan, work, &mut run).unwrap()
    });
    assert_eq!(runs, 4, "one warm-up and three timed runs, here");
    assert_eq!(timing.samples_ms.len(), 3);
    assert!((timing.median_ms - 2.0).abs() < 0.01, "{timing:?}");
    let launches = judge_harness::launches(&device, "spin");
    assert_eq!(launches, 4, "the runs ran on the judge's device");
}
