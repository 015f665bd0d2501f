//! Unit tests of `svg`.
use super::super::{BackendKind, BlockReason, CallSite, GpuSpan};
use super::*;

/// A call over `cpu` µs; `gpu` = (stream, start µs, end µs) puts it on a stream lane.
fn call(op: OpKind, name: &str, cpu: (u64, u64), gpu: Option<(u32, u64, u64)>) -> TraceEntry {
    let span = |(_, a, b): (u32, u64, u64)| GpuSpan {
        start_ns: a * 1000,
        end_ns: b * 1000,
    };
    TraceEntry {
        seq: 0,
        op,
        name: name.to_owned(),
        stream: gpu.map(|g| StreamId(g.0)),
        bytes: 0,
        site: CallSite::internal("sample"),
        cpu_start_ns: cpu.0 * 1000,
        cpu_end_ns: cpu.1 * 1000,
        blocking: None,
        gpu: gpu.map(span),
        captured: false,
    }
}

/// Two streams with copies and kernels, CPU work, and two blocking calls.
fn sample() -> Trace {
    use OpKind::*;
    let mut entries = vec![
        call(CreateStream, "create stream", (0, 1), None),
        call(CopyHostToDevice, "h2d 4 MiB", (1, 3), Some((1, 3, 13))),
        call(Memset, "memset", (3, 4), Some((2, 4, 6))),
        call(Launch, "saxpy", (4, 6), Some((1, 13, 30))),
        call(Launch, "reduce<f32> & <scan>", (6, 8), Some((2, 8, 41))),
        call(GraphLaunch, "graph", (8, 10), Some((1, 30, 48))),
        call(HostWork, "host_work", (10, 19), None),
        call(StreamSynchronize, "stream.synchronize", (19, 48), None),
        call(
            CopyDeviceToHost,
            "d2h pageable",
            (48, 58),
            Some((1, 49, 57)),
        ),
    ];
    entries[7].stream = Some(StreamId(1));
    entries[7].blocking = Some(BlockReason::StreamSynchronize);
    entries[8].blocking = Some(BlockReason::PageableDeviceToHost);
    for (seq, e) in entries.iter_mut().enumerate() {
        (e.seq, e.site) = (
            seq as u64,
            CallSite {
                file: "src/main.rs",
                line: 20 + seq as u32,
                column: 9,
            },
        );
    }
    let (backend, device) = (BackendKind::Virtual, "Virtual H200".to_owned());
    Trace {
        backend,
        device,
        streams: vec![StreamId(1), StreamId(2)],
        entries,
        ranges: Vec::new(),
    }
}

/// Checks that every tag is closed, in order (a tiny well-formedness check).
fn assert_balanced(svg: &str) {
    let mut open = Vec::new();
    for tag in svg
        .split('<')
        .skip(1)
        .map(|t| t.split('>').next().unwrap_or(""))
    {
        let name = |t: &str| t.split([' ', '\n', '/']).next().unwrap_or("").to_owned();
        match tag.strip_prefix('/') {
            Some(closing) => assert_eq!(open.pop(), Some(name(closing)), "at </{closing}>"),
            None if tag.ends_with('/') => {}
            None => open.push(name(tag)),
        }
    }
    assert!(open.is_empty(), "unclosed: {open:?}");
}

#[test]
fn well_formed_with_lanes_legend_hatch_and_escaping() {
    let title = Some("a <b> & 'c'".to_owned());
    let svg = render(
        &sample(),
        &SvgOptions {
            title,
            ..SvgOptions::default()
        },
    );
    assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>\n"));
    assert_balanced(&svg);
    for text in [
        ">CPU<",
        ">stream 1<",
        ">stream 2<",
        ">kernel<",
        ">graph launch<",
    ] {
        assert!(svg.contains(text), "missing {text}");
    }
    assert!(svg.contains(">CPU work (host_work)<") && !svg.contains(">other GPU work<"));
    assert!(svg.contains(r#"<pattern id="blocked""#));
    let hatched = svg
        .lines()
        .filter(|l| l.starts_with("<rect") && l.contains("url(#blocked)"));
    assert_eq!(
        hatched.count(),
        3,
        "two blocking calls and the legend swatch"
    );
    assert!(svg.contains("can block: the CPU waits until every operation"));
    assert!(svg.contains(">a &lt;b&gt; &amp; &apos;c&apos;<"));
    assert!(svg.contains(">reduce&lt;f32&gt; &amp; &lt;scan&gt;<"));
    assert!(!svg.contains("<f32>") && !svg.contains("<scan>"));
}

#[test]
fn window_clips_and_keeps_a_visible_width() {
    let window_ns = Some((3_500, 3_501));
    let svg = render(
        &sample(),
        &SvgOptions {
            width: 600,
            window_ns,
            title: None,
        },
    );
    assert_balanced(&svg);
    assert!(svg.contains("<title>memset") && !svg.contains("<title>saxpy"));
    assert!(
        !svg.contains("<title>create stream"),
        "it ended before the window"
    );
    assert!(!svg.contains(r#"width="0.00""#));
    let entries = vec![call(OpKind::EventQuery, "query", (5, 5), None)];
    let svg = render(
        &Trace {
            entries,
            ..sample()
        },
        &SvgOptions::default(),
    );
    assert!(svg.contains(r#"width="1.00""#));
}

#[test]
fn ticks_are_round_and_labels_fit() {
    assert_eq!(nice_step(30_000, 8), 5_000);
    assert_eq!(nice_step(9_000_000, 10), 1_000_000);
    assert_eq!(nice_step(700, 8), 100);
    assert_eq!(tick_label(15_000, 5_000, 30_000), "15 µs");
    assert_eq!(tick_label(1_500, 500, 3_000), "1.5 µs");
    assert_eq!(tick_label(4_000_000, 1_000_000, 9_000_000), "4 ms");
    assert_eq!(tick_label(2_500_000, 500_000, 3_000_000), "2.5 ms");
    assert_eq!(fit_label("saxpy", 200.0).as_deref(), Some("saxpy"));
    assert_eq!(fit_label("a_long_name", 60.0).as_deref(), Some("a_long…"));
    assert_eq!(fit_label("saxpy", 20.0), None);
}

#[test]
fn snapshot() {
    let title = Some("Two streams, a sync and a pageable copy".to_owned());
    let options = SvgOptions {
        title,
        ..SvgOptions::default()
    };
    let svg = render(&sample(), &options);
    assert_eq!(svg, render(&sample(), &options), "deterministic");
    insta::assert_snapshot!(svg);
}
