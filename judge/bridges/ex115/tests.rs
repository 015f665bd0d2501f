use gpu::OpKind;

#[test]
fn generate_through_the_bridge_reads_each_step_through_the_judge_s_pinned_slots() {
    let (device, stream, decoder) = judge_harness::virtual_decoder();
    let tokens = judge_harness::loopback(serve::serve, || {
        generate(&stream, &decoder, &[1, 2], 3, Duration::ZERO).unwrap()
    });
    assert_eq!(tokens.iter().map(Vec::len).collect::<Vec<_>>(), [3, 3]);
    let first = decoder.reference_step(&[1, 2]);
    assert_eq!([tokens[0][0], tokens[1][0]], [first[0], first[1]]);
    assert_eq!(tokens[0][1], decoder.reference_step(&[first[0]])[0]);
    let count = |op| device.trace().entries.iter().filter(|e| e.op == op).count();
    assert_eq!(
        count(OpKind::Launch),
        3,
        "the steps ran on the judge's device"
    );
    assert_eq!(
        count(OpKind::AllocPinned),
        2,
        "two slots, on the judge's device"
    );
    assert_eq!(count(OpKind::HostRead), 3, "one read a step, by the judge");
}
