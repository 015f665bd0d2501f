#[test]
fn profile_through_the_bridge_times_the_launches_it_is_given() {
    let device = gpu::Device::open(gpu::Backend::Virtual).unwrap();
    let stream = device.new_stream().unwrap();
    let mut launches = 0;
    let (profile, bound, from) = judge_harness::loopback(serve::serve, || {
        let mut launch = |s: &Stream| {
            launches += 1;
            s.spin(Duration::from_micros(20))
        };
        let plan = Plan {
            warmup: 1,
            launches: 10,
        };
        let profile = profile(&stream, plan, &mut launch).unwrap();
        let small = Profile {
            cpu_us: 4.0,
            gpu_us: 1.0,
        };
        (profile, profile.bound(), crossover(&[small, profile]))
    });
    assert_eq!(launches, 11, "one warm-up and ten timed launches, here");
    // A 20 µs spin and a kernel's own overhead, on the virtual GPU.
    let kernel_us = 20.0 + device.calibration().kernel_min_ns as f64 / 1e3;
    assert!((profile.gpu_us - kernel_us).abs() < 0.01, "{profile:?}");
    let launch_us = device.calibration().launch_ns as f64 / 1e3;
    assert!((profile.cpu_us - launch_us).abs() < 0.01, "{profile:?}");
    assert_eq!((bound, from), (Bound::Compute, Some(1)));
    let spins = judge_harness::launches(&device, "spin");
    assert_eq!(
        spins, 12,
        "the launches and the gate ran on the judge's device"
    );
}
