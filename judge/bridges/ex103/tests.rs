#[test]
fn a_runner_through_the_bridge_replays_its_graphs_on_the_judge_s_stream() {
    let device = gpu::Device::open(gpu::Backend::Virtual).unwrap();
    let stream = device.new_stream().unwrap();
    let model = Model::new();
    let rows = 3;
    let x: Vec<f32> = (0..rows * WIDTH).map(|i| (i % 7) as f32 / 8.0).collect();
    let input = stream.alloc_zeros::<f32>(x.len()).unwrap();
    let output = stream.alloc_zeros::<f32>(x.len()).unwrap();
    stream.copy_from_host(&x, &input).unwrap();
    let buckets = judge_harness::loopback(serve::serve, || {
        let mut runner = Runner::new(&stream, &model).unwrap();
        runner
            .decode(&[input.slice(0..x.len())], &[output.slice(0..x.len())])
            .unwrap();
        let err = runner
            .decode(&[input.slice(0..5)], &[output.slice(0..5)])
            .unwrap_err();
        assert!(err.to_string().contains("batch 0 has 5 input"), "{err}");
        [bucket_for(0), bucket_for(3), bucket_for(17)]
    });
    assert_eq!(buckets, [None, Some(4), None]);
    assert_eq!(stream.to_vec(&output).unwrap(), model.reference(&x));
    let launches = judge_harness::calls(&device, gpu::OpKind::GraphLaunch);
    assert_eq!(launches, 1, "one replay, on the judge's device");
}
