#[test]
fn a_handoff_through_the_bridge_runs_on_the_judge_s_device() {
    let device = gpu::Device::open(gpu::Backend::Virtual).unwrap();
    let (producer, consumer) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let batch = device.alloc_pinned::<f32>(3).unwrap();
    batch.write(&[1.0, 2.0, 3.0]).unwrap();
    let x = consumer.alloc_zeros::<f32>(3).unwrap();
    let y = consumer.alloc_zeros::<f32>(3).unwrap();
    consumer.synchronize().unwrap();
    producer.spin(Duration::from_micros(50)).unwrap();
    judge_harness::loopback(serve::serve, || {
        handoff(&producer, &consumer, &batch, x.slice(0..3), y.slice(0..3)).unwrap();
    });
    assert_eq!(consumer.to_vec(&y).unwrap(), [3.0, 5.0, 7.0]);
    assert!(device.take_races().is_empty(), "no race");
    let waits = judge_harness::calls(&device, gpu::OpKind::StreamWaitEvent);
    assert_eq!(waits, 1, "one wait, on the judge's device");
}
