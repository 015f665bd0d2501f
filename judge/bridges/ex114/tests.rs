#[test]
fn an_allocator_through_the_bridge_runs_on_the_judge_s_device() {
    let device = gpu::Device::open(gpu::Backend::Virtual).unwrap();
    let (owner, side) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let (first, pending, again) = judge_harness::loopback(serve::serve, || {
        let mut alloc = StreamAllocator::new(&owner);
        let a = alloc.malloc(4096).unwrap();
        let first = a.addr();
        alloc.free(a).unwrap();
        let mut b = alloc.malloc(4096).unwrap();
        side.spin(Duration::from_millis(1)).unwrap();
        alloc.record_stream(&mut b, &side);
        alloc.free(b).unwrap();
        let c = alloc.malloc(4096).unwrap();
        let pending = c.addr();
        alloc.free(c).unwrap();
        let d = alloc.malloc(4096).unwrap();
        (first, pending, d.addr())
    });
    assert_ne!(pending, first, "the block the side stream uses is pending");
    assert_eq!(again, pending, "the free block is reused first");
    let trace = device.trace();
    let count = |op| trace.entries.iter().filter(|e| e.op == op).count();
    assert_eq!(count(gpu::OpKind::AllocSegment), 2, "two segments");
    assert_eq!(
        count(gpu::OpKind::EventRecord),
        1,
        "one event, on the judge's device"
    );
}
