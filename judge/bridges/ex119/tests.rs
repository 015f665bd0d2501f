/// A step on the virtual GPU: a kernel then a `to_vec` (a wait), host work
/// longer than the kernel then a synchronize (no wait: the GPU is done), a
/// kernel then a device synchronize (a wait). Its trace, from the step's
/// first call, with `blocking` cleared as the judge hands it over.
fn step() -> (u64, Trace) {
    let ms = std::time::Duration::from_millis;
    let device = gpu::Device::with_options(gpu::DeviceOptions {
        backend: gpu::Backend::Virtual,
        quiet: true,
        ..gpu::DeviceOptions::default()
    })
    .expect("the virtual GPU opens");
    let stream = device.new_stream().unwrap();
    let logits = stream.alloc_zeros::<f32>(256).unwrap();
    device.synchronize().unwrap();
    let mark = device.trace_mark();
    stream.spin(ms(1)).unwrap();
    stream.to_vec(&logits).unwrap();
    stream.spin(ms(1)).unwrap();
    device.host_work(ms(2));
    stream.synchronize().unwrap();
    stream.spin(ms(1)).unwrap();
    device.synchronize().unwrap();
    let mut trace = device.trace();
    trace.entries.retain(|e| e.seq >= mark);
    for entry in &mut trace.entries {
        entry.blocking = None;
    }
    (mark, trace)
}

#[test]
fn waits_through_the_bridge_answers_as_the_solution_does() {
    let (mark, trace) = step();
    let answers = judge_harness::loopback(serve::serve, || waits(&trace));
    let expected = vec![
        Wait {
            seq: mark + 1,
            kind: WaitKind::PageableDownload,
        },
        Wait {
            seq: mark + 6,
            kind: WaitKind::Synchronize,
        },
    ];
    assert_eq!(answers, expected);
}
