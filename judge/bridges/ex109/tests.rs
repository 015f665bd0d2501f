const MIB: usize = 1 << 20;

#[test]
fn each_function_through_the_bridge_answers_as_the_solution_does() {
    let answers = judge_harness::loopback(serve::serve, || {
        (
            [0, 1, 513, MIB + 1].map(round_size),
            [MIB, MIB + 512].map(pool_for),
            [MIB, 5 * MIB, 12 * MIB + 512].map(segment_size),
        )
    });
    assert_eq!(
        answers,
        (
            [512, 512, 1024, MIB + 512],
            [Pool::Small, Pool::Large],
            [2 * MIB, 20 * MIB, 14 * MIB],
        )
    );
}
