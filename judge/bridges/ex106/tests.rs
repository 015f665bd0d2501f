#[test]
fn run_through_the_bridge_sums_each_lent_batch_on_the_judge_s_streams() {
    let device = gpu::Device::open(gpu::Backend::Virtual).unwrap();
    let (copy, compute) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let batches: Vec<PinnedBuffer<f32>> = (1..=3)
        .map(|i| {
            let batch = device.alloc_pinned::<f32>(256).unwrap();
            batch.write(&vec![i as f32; 256]).unwrap();
            batch
        })
        .collect();
    let model = Model {
        step: Duration::from_millis(1),
    };
    let outputs = judge_harness::loopback(serve::serve, || {
        run(&model, &batches, &copy, &compute).unwrap()
    });
    assert_eq!(outputs, [256.0, 512.0, 768.0]);
    assert!(device.races().is_empty(), "{:?}", device.races());
    let sums = judge_harness::launches(&device, "sum_f32");
    assert_eq!(sums, 3, "the steps ran on the judge's device");
}
