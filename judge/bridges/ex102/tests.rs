#[test]
fn generate_and_a_sampler_through_the_bridge_decode_on_the_judge_s_decoder() {
    let (_device, stream, decoder) = judge_harness::virtual_decoder();
    let batch = Batch {
        requests: vec![
            Request {
                prompt: 1,
                max_new_tokens: 3,
            },
            Request {
                prompt: 2,
                max_new_tokens: 2,
            },
        ],
        eos: -1,
    };
    let (generated, stepped) = judge_harness::loopback(serve::serve, || {
        let generated = generate(&stream, &decoder, &batch, Duration::from_micros(10)).unwrap();
        let mut sampler = Sampler::new(&stream, &decoder, &batch).unwrap();
        while !sampler.is_finished() {
            sampler.submit().unwrap();
            sampler.process().unwrap();
        }
        (generated, sampler.into_outputs())
    });
    assert_eq!(generated, stepped);
    assert_eq!(generated.iter().map(Vec::len).collect::<Vec<_>>(), [3, 2]);
    assert_eq!(generated[0][0], decoder.reference_step(&[1, 2])[0]);
}
