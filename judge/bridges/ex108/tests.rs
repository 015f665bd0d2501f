#[test]
fn generate_through_the_bridge_decodes_on_the_judge_s_decoder() {
    let (device, stream, decoder) = judge_harness::virtual_decoder();
    let tokens = judge_harness::loopback(serve::serve, || {
        generate(&stream, &decoder, &[1, 2], 3).unwrap()
    });
    assert_eq!(tokens.iter().map(Vec::len).collect::<Vec<_>>(), [3, 3]);
    let first = decoder.reference_step(&[1, 2]);
    assert_eq!([tokens[0][0], tokens[1][0]], [first[0], first[1]]);
    assert_eq!(tokens[0][1], decoder.reference_step(&[first[0]])[0]);
    let launches = judge_harness::launches(&device, "decode_step");
    assert_eq!(launches, 3, "the steps ran on the judge's device");
}
