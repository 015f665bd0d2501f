/// A step on the virtual GPU: in `step`, host work of 20 µs, a range `a`
/// that queues a kernel of 100 µs on one stream, and a range `b` that
/// queues one of 50 µs on another, which runs while the first does. Its
/// trace, as the judge hands it over.
fn step() -> Trace {
    let us = std::time::Duration::from_micros;
    let device = gpu::Device::with_options(gpu::DeviceOptions {
        backend: gpu::Backend::Virtual,
        quiet: true,
        ..gpu::DeviceOptions::default()
    })
    .expect("the virtual GPU opens");
    let (one, two) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    {
        let _step = device.range("step");
        device.host_work(us(20));
        {
            let _a = device.range("a");
            one.spin(us(100)).unwrap();
        }
        let _b = device.range("b");
        two.spin(us(50)).unwrap();
    }
    device.synchronize().unwrap();
    device.trace()
}

#[test]
fn attribute_through_the_bridge_answers_as_the_solution_does() {
    let trace = step();
    let answers = judge_harness::loopback(serve::serve, || attribute(&trace));
    let cpu: Vec<u64> = trace.ranges.iter().map(gpu::Range::cpu_ns).collect();
    let spans: Vec<gpu::GpuSpan> = trace.entries.iter().filter_map(|e| e.gpu).collect();
    let [a, b] = spans[..] else {
        panic!("two kernels: {spans:?}")
    };
    assert!(
        b.start_ns > a.start_ns && b.end_ns < a.end_ns,
        "{a:?} {b:?}"
    );
    let time = |cpu_ns, cpu_self_ns, gpu_ns, gpu_self_ns| RangeTime {
        cpu_ns,
        cpu_self_ns,
        gpu_ns,
        gpu_self_ns,
    };
    let (a, b) = (a.end_ns - a.start_ns, b.end_ns - b.start_ns);
    let expected = vec![
        time(cpu[0], cpu[0] - cpu[1] - cpu[2], a, 0),
        time(cpu[1], cpu[1], a, a),
        time(cpu[2], cpu[2], b, b),
    ];
    assert!(expected[0].cpu_self_ns >= 20_000);
    assert_eq!(answers, expected);
}
