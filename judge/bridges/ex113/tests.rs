#[test]
fn a_bucketed_step_through_the_bridge_runs_on_the_judge_s_device() {
    let (device, stream, decoder) = judge_harness::virtual_decoder();
    let tokens = stream.alloc_zeros::<i32>(9).unwrap();
    let next = stream.alloc_zeros::<i32>(9).unwrap();
    stream
        .copy_from_host(&[1, 2, 3, 4, 5, 6, 7, 8, 9], &tokens)
        .unwrap();
    let (input, refused) = judge_harness::loopback(serve::serve, || {
        let mut step = BucketedStep::new(&stream, &decoder).unwrap();
        step.step(tokens.slice(0..8), next.slice(0..8)).unwrap();
        step.step(tokens.slice(0..3), next.slice(0..3)).unwrap();
        let input = stream.to_vec(step.static_buffers().0).unwrap();
        assert_eq!(
            (bucket_for(0), bucket_for(5), bucket_for(9)),
            (Some(1), Some(8), None),
            "the learner's `bucket_for`, in the agent"
        );
        (input, step.step(tokens.slice(0..9), next.slice(0..9)))
    });
    assert_eq!(
        input,
        [1, 2, 3, PAD, 5, 6, 7, 8],
        "row 3 padded, the judge reads it"
    );
    assert!(matches!(
        refused,
        Err(Error::TooManyRows { rows: 9, max: 8 })
    ));
    let got = stream.to_vec(&next).unwrap();
    let want = decoder.reference_step(&[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(got[..8], want[..]);
    let replays = judge_harness::calls(&device, gpu::OpKind::GraphLaunch);
    assert_eq!(replays, 2, "two replays, on the judge's device");
}
