const MIB: usize = 1 << 20;

#[test]
fn the_learner_s_allocator_runs_over_the_judge_s_driver() {
    let (s0, s1) = (StreamId(0), StreamId(1));
    let (layout, oom, message) = judge_harness::loopback(serve::serve, || {
        let mut a = CachingAllocator::new(SimDriver::new(4 * MIB));
        let x = a.malloc(1000, s0).unwrap();
        assert_eq!((x.addr(), x.size()), (0, 1024));
        a.record_stream(&x, s1);
        a.free(x).unwrap();
        let pending = a.snapshot()[0].blocks[0].state;
        a.driver_mut().finish(s1);
        let again = a.malloc(512, s0).unwrap();
        assert_eq!(again.addr(), 0, "reused once stream 1 finished");
        let oom = a.malloc(8 * MIB, s0).unwrap_err();
        (pending, oom.clone(), oom.to_string())
    });
    assert_eq!(layout, BlockState::PendingFree);
    assert!(matches!(oom, AllocError::OutOfMemory { requested, .. } if requested == 8 * MIB));
    assert!(
        message.contains("out of device memory"),
        "the learner's message: {message}"
    );
}
