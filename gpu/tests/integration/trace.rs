//! The trace: call sites, determinism, exports.

use crate::support::open;
use gpu::{Backend, OpKind, SvgOptions, Trace};
use std::time::Duration;

/// A small program with every kind of call, on the virtual GPU.
fn program() -> Trace {
    let device = open(Backend::Virtual);
    let (a, b) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let x = a.alloc_zeros::<f32>(1 << 16).unwrap();
    let pinned = device.alloc_pinned::<f32>(1 << 16).unwrap();
    a.spin(Duration::from_millis(2)).unwrap();
    a.fill(&x, 1.5).unwrap();
    let ready = a.record_event().unwrap();
    b.wait_event(&ready).unwrap();
    b.copy_to_pinned(&x, &pinned).unwrap();
    device.host_work(Duration::from_micros(500));
    let done = b.record_event().unwrap();
    done.synchronize().unwrap();
    assert_eq!(pinned.to_vec()[0], 1.5);
    let _ = a.to_vec(x.slice(0..4)).unwrap();
    device.trace()
}

#[test]
fn the_same_program_gives_the_same_trace_twice() {
    let (first, second) = (program(), program());
    assert_eq!(first, second);
    assert_eq!(first.to_chrome_json(), second.to_chrome_json());
    assert_eq!(
        first.to_svg(&SvgOptions::default()),
        second.to_svg(&SvgOptions::default())
    );
}

#[test]
fn entries_name_the_callers_line() {
    let trace = program();
    let fill = trace.entries.iter().find(|e| e.name == "fill_f32").unwrap();
    assert!(fill.site.file.ends_with("trace.rs"), "{}", fill.site);
    let source = include_str!("trace.rs");
    let line = source.lines().nth(fill.site.line as usize - 1).unwrap();
    assert!(
        line.contains("a.fill(&x, 1.5)"),
        "line {} is `{line}`",
        fill.site.line
    );
}

#[test]
fn the_trace_of_a_program_is_stable() {
    let trace = program();
    let rows: Vec<String> = trace
        .entries
        .iter()
        .map(|e| {
            let gpu = e
                .gpu
                .map(|g| format!("gpu {:>8}..{:>8}", g.start_ns, g.end_ns))
                .unwrap_or_default();
            let blocking = e
                .blocking
                .map(|b| format!(" BLOCKING({b:?})"))
                .unwrap_or_default();
            let stream = e
                .stream
                .map(|s| format!("s{s}"))
                .unwrap_or_else(|| "--".into());
            format!(
                "{:>2} {:<2} {:<24} {:>7} B cpu {:>8}..{:>8} {gpu}{blocking} line {}",
                e.seq, stream, e.name, e.bytes, e.cpu_start_ns, e.cpu_end_ns, e.site.line
            )
        })
        .collect();
    insta::assert_snapshot!(rows.join("\n"));
}

#[test]
fn blocking_calls_are_marked_and_exported() {
    let trace = program();
    let blocking: Vec<OpKind> = trace.blocking().map(|e| e.op).collect();
    assert_eq!(
        blocking,
        [OpKind::EventSynchronize, OpKind::CopyDeviceToHost]
    );
    let json: serde_json::Value = serde_json::from_str(&trace.to_chrome_json()).unwrap();
    let events = json["traceEvents"].as_array().unwrap();
    assert!(events.iter().any(|e| e["cname"] == "terrible"));
    assert!(trace.to_svg(&SvgOptions::default()).contains("<svg"));
    let back: Trace = serde_json::from_str(&serde_json::to_string(&trace).unwrap()).unwrap();
    assert_eq!(back, trace, "a trace survives a JSON round trip");
}
