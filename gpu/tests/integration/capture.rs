//! Graph capture and replay.

use crate::both;
use crate::support::{cpu_time, open};
use gpu::{Backend, GpuError, OpKind};
use std::time::Duration;

both!(
    replay_reproduces_the_captured_work,
    replay_reads_inputs_from_the_captured_addresses,
    sync_inside_capture_invalidates_it,
    query_and_pageable_copies_inside_capture_invalidate_it,
    allocation_inside_capture_is_refused,
    replay_submits_in_a_fraction_of_eager_time,
    a_replay_racing_another_stream_is_reported_at_its_launch,
);

/// x → y = 2x + 1 → z = 3y - 2 → total = sum(z), on `s`.
fn layers(
    s: &gpu::Stream,
    x: &gpu::DeviceBuffer<f32>,
    y: &gpu::DeviceBuffer<f32>,
    total: &gpu::DeviceBuffer<f32>,
) {
    s.affine(x, 2.0, 1.0, y).unwrap();
    s.affine(y, 3.0, -2.0, x).unwrap();
    s.sum(x, total).unwrap();
}

fn replay_reproduces_the_captured_work(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    let (x, y, total) = (
        s.alloc_zeros(64).unwrap(),
        s.alloc_zeros(64).unwrap(),
        s.alloc_zeros(1).unwrap(),
    );
    s.fill(&x, 1.0).unwrap();
    layers(&s, &x, &y, &total);
    let eager = s.to_vec(&total).unwrap();
    s.fill(&x, 1.0).unwrap();
    s.begin_capture().unwrap();
    assert!(s.is_capturing());
    layers(&s, &x, &y, &total);
    let graph = s.end_capture().unwrap();
    assert_eq!(graph.len(), 3);
    s.fill(&total, -1.0).unwrap();
    assert_eq!(s.to_vec(&total).unwrap(), [-1.0], "capturing runs nothing");
    graph.launch().unwrap();
    assert_eq!(s.to_vec(&total).unwrap(), eager);
    assert_eq!(eager, [64.0 * 7.0]);
    let trace = device.trace();
    assert_eq!(trace.entries.iter().filter(|e| e.captured).count(), 3);
}

fn replay_reads_inputs_from_the_captured_addresses(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    let input = device.alloc_pinned::<f32>(8).unwrap();
    let (x, y, total) = (
        s.alloc_zeros(8).unwrap(),
        s.alloc_zeros(8).unwrap(),
        s.alloc_zeros(1).unwrap(),
    );
    s.synchronize().unwrap();
    s.begin_capture().unwrap();
    s.copy_from_pinned(&input, &x).unwrap();
    layers(&s, &x, &y, &total);
    let graph = s.end_capture().unwrap();
    let mut results = Vec::new();
    for v in [1.0, 2.0, 3.0] {
        input.write(&[v; 8]).unwrap();
        graph.launch().unwrap();
        results.push(s.to_vec(&total).unwrap()[0]);
    }
    assert_eq!(results, [8.0 * 7.0, 8.0 * 13.0, 8.0 * 19.0]);
    assert!(device.races().is_empty(), "{:#?}", device.races());
}

/// A replay writes `x` (its second node) while another stream reads `x`
/// with nothing ordering the two: the race names a node of the graph and
/// the line that launched it; with an event, there is none.
fn a_replay_racing_another_stream_is_reported_at_its_launch(backend: Backend) {
    let device = open(backend);
    let (s, other) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let (x, y, total, seen) = (
        s.alloc_zeros::<f32>(64).unwrap(),
        s.alloc_zeros(64).unwrap(),
        s.alloc_zeros(1).unwrap(),
        s.alloc_zeros(1).unwrap(),
    );
    s.synchronize().unwrap();
    s.begin_capture().unwrap();
    layers(&s, &x, &y, &total);
    let graph = s.end_capture().unwrap();
    other.wait_event(&s.record_event().unwrap()).unwrap();
    other.sum(&x, &seen).unwrap();
    let launch_line = line!() + 1;
    graph.launch().unwrap();
    let races = device.take_races();
    assert_eq!(races.len(), 1, "{races:#?}");
    let race = &races[0];
    assert!(race.current.what.starts_with("graph node 0:"), "{race}");
    assert_eq!(race.current.site.line, launch_line, "{race}");
    assert!(race.previous.what.contains("sum_f32"), "{race}");
    other.wait_event(&s.record_event().unwrap()).unwrap();
    other.sum(&x, &seen).unwrap();
    s.wait_event(&other.record_event().unwrap()).unwrap();
    graph.launch().unwrap();
    s.synchronize().unwrap();
    assert!(device.races().is_empty(), "{:#?}", device.races());
}

fn sync_inside_capture_invalidates_it(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    let x = s.alloc_zeros::<f32>(16).unwrap();
    s.synchronize().unwrap();
    s.begin_capture().unwrap();
    s.fill(&x, 1.0).unwrap();
    let sync_line = line!() + 1;
    let err = s.synchronize().unwrap_err();
    assert!(
        matches!(
            err,
            GpuError::IllegalInCapture {
                op: "Stream::synchronize",
                ..
            }
        ),
        "{err}"
    );
    assert!(matches!(
        s.fill(&x, 2.0),
        Err(GpuError::CaptureInvalidated { .. })
    ));
    match s.end_capture() {
        Err(GpuError::CaptureInvalidated { op, site, .. }) => {
            assert_eq!(op, "Stream::synchronize");
            assert_eq!(site.line, sync_line);
        }
        other => panic!("expected an invalidated capture, got {other:?}"),
    }
    assert!(!s.is_capturing());
    s.fill(&x, 3.0).unwrap();
    assert_eq!(
        s.to_vec(&x).unwrap(),
        vec![3.0; 16],
        "the stream works again after the failed capture"
    );
}

fn query_and_pageable_copies_inside_capture_invalidate_it(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    let x = s.alloc_zeros::<f32>(16).unwrap();
    let e = s.record_event().unwrap();
    s.synchronize().unwrap();
    type Call<'a> = Box<dyn Fn() -> gpu::Result<()> + 'a>;
    let cases: [(&str, Call<'_>); 4] = [
        ("query", Box::new(|| s.query().map(drop))),
        ("event query", Box::new(|| e.query().map(drop))),
        ("to_vec", Box::new(|| s.to_vec(&x).map(drop))),
        (
            "copy_from_host",
            Box::new(|| s.copy_from_host(&[0.0; 16], &x)),
        ),
    ];
    for (name, call) in cases {
        s.begin_capture().unwrap();
        assert!(
            matches!(call(), Err(GpuError::IllegalInCapture { .. })),
            "{name} inside a capture"
        );
        assert!(
            matches!(s.end_capture(), Err(GpuError::CaptureInvalidated { .. })),
            "{name}"
        );
    }
}

fn allocation_inside_capture_is_refused(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    s.begin_capture().unwrap();
    assert!(matches!(
        s.alloc_zeros::<f32>(16),
        Err(GpuError::IllegalInCapture { .. })
    ));
    assert!(matches!(
        s.end_capture(),
        Err(GpuError::CaptureInvalidated { .. })
    ));
    s.begin_capture().unwrap();
    assert!(matches!(
        device.alloc_segment(1 << 20),
        Err(GpuError::IllegalInCapture { .. })
    ));
    assert!(s.end_capture().is_err());
}

fn replay_submits_in_a_fraction_of_eager_time(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    const KERNELS: usize = 200;
    let eager = |s: &gpu::Stream| {
        for _ in 0..KERNELS {
            s.spin(Duration::ZERO).unwrap();
        }
    };
    eager(&s);
    s.synchronize().unwrap();
    let (_, t_eager) = cpu_time(&device, || eager(&s));
    s.synchronize().unwrap();
    s.begin_capture().unwrap();
    eager(&s);
    let graph = s.end_capture().unwrap();
    assert_eq!(graph.len(), KERNELS);
    graph.launch().unwrap();
    s.synchronize().unwrap();
    let (_, t_graph) = cpu_time(&device, || graph.launch().unwrap());
    s.synchronize().unwrap();
    assert!(
        t_graph * 5 < t_eager,
        "graph launch {t_graph:?} vs {KERNELS} eager launches {t_eager:?}"
    );
    let launches = device
        .trace()
        .entries
        .iter()
        .filter(|e| e.op == OpKind::GraphLaunch)
        .count();
    assert_eq!(launches, 2);
}

#[test]
fn only_one_capture_at_a_time_and_end_needs_begin() {
    let device = open(Backend::Virtual);
    let (a, b) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    assert!(matches!(
        a.end_capture(),
        Err(GpuError::CaptureState { .. })
    ));
    a.begin_capture().unwrap();
    assert!(matches!(
        b.begin_capture(),
        Err(GpuError::CaptureState { .. })
    ));
    assert!(matches!(
        b.end_capture(),
        Err(GpuError::CaptureState { .. })
    ));
    a.end_capture().unwrap();
}
