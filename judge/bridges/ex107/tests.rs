#[test]
fn predict_through_the_bridge_answers_as_the_solution_does() {
    let staging = Staging {
        inline_bytes: 64 << 10,
        slot_bytes: 2 << 20,
        slots: 2,
    };
    let idle = Ahead {
        stream_busy: false,
        event_pending: false,
        device_busy: false,
        staging_slots_in_use: 0,
    };
    let busy = Ahead {
        stream_busy: true,
        device_busy: true,
        ..idle
    };
    let copy = |bytes, memory| Op::Copy {
        direction: Direction::HostToDevice,
        memory,
        bytes,
    };
    let cases = [
        (Op::Launch, busy, Wait::Nothing),
        (Op::StreamSynchronize, busy, Wait::Stream),
        (Op::StreamSynchronize, idle, Wait::Nothing),
        (Op::FreeSegment, busy, Wait::Device),
        (copy(64 << 20, Memory::Pageable), busy, Wait::Stream),
        (copy(64 << 20, Memory::Pinned), busy, Wait::Nothing),
    ];
    let answers = judge_harness::loopback(serve::serve, || {
        cases
            .iter()
            .map(|&(op, ahead, _)| predict(&Call { op, ahead }, &staging))
            .collect::<Vec<_>>()
    });
    let expected: Vec<Wait> = cases.iter().map(|c| c.2).collect();
    assert_eq!(answers, expected);
}
