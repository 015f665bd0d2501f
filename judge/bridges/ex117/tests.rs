#[test]
fn run_through_the_bridge_runs_each_lent_chunk_on_the_judge_s_streams() {
    let device = gpu::Device::open(gpu::Backend::Virtual).unwrap();
    let streams: Vec<Stream> = (0..3).map(|_| device.new_stream().unwrap()).collect();
    let pinned = |k: usize| {
        let buffer = device.alloc_pinned::<f32>(256).unwrap();
        buffer.write(&vec![k as f32; 256]).unwrap();
        buffer
    };
    let chunks: Vec<PinnedBuffer<f32>> = (1..=3).map(pinned).collect();
    let outputs: Vec<PinnedBuffer<f32>> = (0..3).map(|_| pinned(0)).collect();
    let layer = Layer {
        step: Duration::from_micros(100),
    };
    let results = judge_harness::loopback(serve::serve, || {
        let streams = Streams {
            copy_in: &streams[0],
            compute: &streams[1],
            copy_out: &streams[2],
        };
        run(&layer, &chunks, &outputs, streams).unwrap()
    });
    assert_eq!(results, [vec![3.0; 256], vec![5.0; 256], vec![7.0; 256]]);
    assert_eq!(
        outputs[2].to_vec(),
        vec![7.0; 256],
        "the judge's outputs hold the results"
    );
    assert!(device.races().is_empty(), "{:?}", device.races());
    let layers = judge_harness::launches(&device, "affine_f32");
    assert_eq!(layers, 3, "the layers ran on the judge's device");
}
