//! A capture across two streams: forked by an event the second stream waits
//! for, joined back by an event the origin waits for, replayed with its two
//! branches side by side.

use crate::both;
use crate::support::open;
use gpu::{Backend, GpuError};
use std::time::Duration;

both!(
    a_fork_joined_back_replays_both_branches,
    the_branches_of_a_replay_run_side_by_side,
    a_fork_not_joined_back_fails_and_leaves_both_streams_usable,
    a_stream_of_the_capture_may_not_wait_for_an_event_from_outside,
    branches_that_write_one_buffer_race,
);

/// Begins a capture on `s` and forks it onto `t`.
fn fork(s: &gpu::Stream, t: &gpu::Stream) {
    s.begin_capture().unwrap();
    t.wait_event(&s.record_event().unwrap()).unwrap();
}

/// Joins `t` back into `s`.
fn join(s: &gpu::Stream, t: &gpu::Stream) {
    s.wait_event(&t.record_event().unwrap()).unwrap();
}

fn a_fork_joined_back_replays_both_branches(backend: Backend) {
    let device = open(backend);
    let (s, t) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let (x, y, a, b, total) = (
        s.alloc_zeros::<f32>(64).unwrap(),
        s.alloc_zeros(64).unwrap(),
        s.alloc_zeros(64).unwrap(),
        s.alloc_zeros(64).unwrap(),
        s.alloc_zeros(1).unwrap(),
    );
    s.fill(&x, 1.0).unwrap();
    s.fill(&a, 2.0).unwrap();
    s.synchronize().unwrap();
    fork(&s, &t);
    assert!(s.is_capturing() && t.is_capturing(), "t joined the capture");
    s.affine(&x, 2.0, 1.0, &y).unwrap();
    t.affine(&a, 10.0, 0.0, &b).unwrap();
    join(&s, &t);
    s.sum(&b, &total).unwrap();
    match t.end_capture() {
        Err(GpuError::CaptureState { detail, .. }) => {
            assert!(detail.contains("joined the capture of stream"), "{detail}");
        }
        other => panic!("end_capture on the joined stream: {other:?}"),
    }
    let graph = s.end_capture().unwrap();
    assert!(!t.is_capturing(), "the capture has ended for both streams");
    assert_eq!(graph.len(), 3);
    assert_eq!(s.to_vec(&total).unwrap(), [0.0], "capturing runs nothing");
    graph.launch().unwrap();
    assert_eq!(s.to_vec(&y).unwrap(), vec![3.0; 64]);
    assert_eq!(s.to_vec(&b).unwrap(), vec![20.0; 64]);
    assert_eq!(s.to_vec(&total).unwrap(), [64.0 * 20.0]);
    let captured = device.trace().entries.iter().filter(|e| e.captured).count();
    assert_eq!(
        captured, 3,
        "the nodes of both branches are traced as captured"
    );
    assert!(device.races().is_empty(), "{:#?}", device.races());
}

/// GPU time of one launch of `graph`, between two events on its stream.
fn replay_ms(graph: &gpu::Graph) -> f32 {
    let s = graph.stream();
    let start = s.record_event().unwrap();
    graph.launch().unwrap();
    let end = s.record_event().unwrap();
    start.elapsed_ms(&end).unwrap()
}

/// Two 2 ms spins: on two branches the replay takes about one, in a chain two.
fn the_branches_of_a_replay_run_side_by_side(backend: Backend) {
    const SPIN: Duration = Duration::from_millis(2);
    let device = open(backend);
    let (s, t) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    fork(&s, &t);
    s.spin(SPIN).unwrap();
    t.spin(SPIN).unwrap();
    join(&s, &t);
    let forked = s.end_capture().unwrap();
    s.begin_capture().unwrap();
    s.spin(SPIN).unwrap();
    s.spin(SPIN).unwrap();
    let chain = s.end_capture().unwrap();
    let (forked_ms, chain_ms) = (replay_ms(&forked), replay_ms(&chain));
    assert!(
        (2.0..3.0).contains(&forked_ms),
        "two branches of a 2 ms spin replay in {forked_ms} ms"
    );
    assert!(
        (4.0..5.0).contains(&chain_ms),
        "a chain of two 2 ms spins replays in {chain_ms} ms"
    );
}

fn a_fork_not_joined_back_fails_and_leaves_both_streams_usable(backend: Backend) {
    let device = open(backend);
    let (s, t) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let x = s.alloc_zeros::<f32>(16).unwrap();
    s.synchronize().unwrap();
    s.begin_capture().unwrap();
    let fork_line = line!() + 1;
    t.wait_event(&s.record_event().unwrap()).unwrap();
    t.fill(&x, 1.0).unwrap();
    match s.end_capture() {
        Err(GpuError::CaptureUnjoined {
            stream,
            joined,
            joined_at,
            ..
        }) => {
            assert_eq!((stream, joined), (s.id().0, t.id().0));
            assert_eq!(joined_at.line, fork_line);
        }
        other => panic!("expected an unjoined capture, got {other:?}"),
    }
    assert!(!s.is_capturing() && !t.is_capturing());
    t.fill(&x, 2.0).unwrap();
    assert_eq!(t.to_vec(&x).unwrap(), vec![2.0; 16], "t works again");
    s.fill(&x, 3.0).unwrap();
    assert_eq!(s.to_vec(&x).unwrap(), vec![3.0; 16], "s works again");
}

fn a_stream_of_the_capture_may_not_wait_for_an_event_from_outside(backend: Backend) {
    let device = open(backend);
    let (s, t) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let outside = t.record_event().unwrap();
    s.begin_capture().unwrap();
    let err = s.wait_event(&outside).unwrap_err();
    match &err {
        GpuError::IllegalInCapture { why, .. } => {
            assert!(why.contains("before `begin_capture`"), "{err}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert!(matches!(
        s.end_capture(),
        Err(GpuError::CaptureInvalidated { .. })
    ));
}

/// Both branches fill `x`: nothing orders them inside the graph.
fn branches_that_write_one_buffer_race(backend: Backend) {
    let device = open(backend);
    let (s, t) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let x = s.alloc_zeros::<f32>(16).unwrap();
    s.synchronize().unwrap();
    fork(&s, &t);
    let first = line!() + 1;
    s.fill(&x, 1.0).unwrap();
    let second = line!() + 1;
    t.fill(&x, 2.0).unwrap();
    join(&s, &t);
    let graph = s.end_capture().unwrap();
    let races = device.take_races();
    assert_eq!(races.len(), 1, "{races:#?}");
    let lines = (races[0].previous.site.line, races[0].current.site.line);
    assert_eq!(lines, (first, second), "{}", races[0]);
    graph.launch().unwrap();
    s.synchronize().unwrap();
    assert!(
        device.races().is_empty(),
        "a replay adds no report of its own"
    );
}
