use learner::{COLS, ROWS};

/// A virtual device, quiet.
fn device() -> gpu::Device {
    gpu::Device::with_options(gpu::DeviceOptions {
        backend: gpu::Backend::Virtual,
        quiet: true,
        ..gpu::DeviceOptions::default()
    })
    .expect("the virtual GPU opens")
}

/// A step of a kernel and a read of its result, and the same step with a
/// synchronize after the kernel: their traces, `blocking` cleared as the
/// judge hands them over, and the synchronize's `seq`.
fn pair() -> (Trace, Trace, u64) {
    let device = device();
    let stream = device.new_stream().unwrap();
    let out = stream.alloc_zeros::<f32>(16).unwrap();
    device.synchronize().unwrap();
    let profile = |sync: bool| {
        device.clear_trace();
        stream.spin(std::time::Duration::from_micros(300)).unwrap();
        let seq = device.trace_mark();
        if sync {
            stream.synchronize().unwrap();
        }
        stream.spin(std::time::Duration::from_micros(300)).unwrap();
        stream.to_vec(&out).unwrap();
        let mut trace = device.trace();
        trace.entries.iter_mut().for_each(|e| e.blocking = None);
        (trace, seq)
    };
    let (before, _) = profile(false);
    let (after, seq) = profile(true);
    (before, after, seq)
}

#[test]
fn diagnose_through_the_bridge_answers_as_the_solution_does() {
    let (before, after, seq) = pair();
    let answer = judge_harness::loopback(serve::serve, || diagnose(&before, &after));
    assert_eq!(answer, Regression::NewSync { seq });
}

#[test]
fn an_engine_through_the_bridge_steps_on_the_judge_s_device() {
    let device = device();
    let stream = device.new_stream().unwrap();
    let batch = |shift: usize| {
        let pinned = device.alloc_pinned::<f32>(ROWS * COLS).unwrap();
        let values: Vec<f32> = (0..ROWS * COLS).map(|i| ((i + shift) % COLS) as f32).collect();
        pinned.write(&values).unwrap();
        pinned
    };
    let (first, next) = (batch(5), batch(9));
    let tokens = judge_harness::loopback(serve::serve, || {
        let mut engine = Engine::new(&stream, &first).unwrap();
        engine.step(&next).unwrap()
    });
    // Each row's smallest value, 0, is at column COLS - 5.
    assert_eq!(tokens, vec![(COLS - 5) as i32; ROWS]);
    assert_eq!(judge_harness::launches(&device, "argmax_rows_f32"), 1);
}
