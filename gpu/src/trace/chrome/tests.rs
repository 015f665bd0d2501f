//! Unit tests of `chrome`.
use super::super::{BackendKind, BlockReason, CallSite, GpuSpan, StreamId};
use super::*;

/// One call, with everything optional left empty.
fn entry(seq: u64, op: OpKind, name: &str, cpu: (u64, u64)) -> TraceEntry {
    TraceEntry {
        seq,
        op,
        name: name.to_owned(),
        stream: None,
        bytes: 0,
        site: CallSite {
            file: "src/main.rs",
            line: 10 + seq as u32,
            column: 5,
        },
        cpu_start_ns: cpu.0,
        cpu_end_ns: cpu.1,
        blocking: None,
        gpu: None,
        captured: false,
    }
}

/// A call queued on `stream` that the GPU ran over `gpu`.
fn on_gpu(mut e: TraceEntry, stream: u32, gpu: (u64, u64), bytes: u64) -> TraceEntry {
    e.stream = Some(StreamId(stream));
    e.gpu = Some(GpuSpan {
        start_ns: gpu.0,
        end_ns: gpu.1,
    });
    e.bytes = bytes;
    e
}

/// Two streams, a copy and two kernels, CPU work, and a blocking synchronize.
fn sample() -> Trace {
    let mut sync = entry(5, OpKind::StreamSynchronize, "synchronize", (9_000, 31_000));
    sync.stream = Some(StreamId(1));
    sync.blocking = Some(BlockReason::StreamSynchronize);
    Trace {
        backend: BackendKind::Virtual,
        device: "Virtual H200".to_owned(),
        streams: vec![StreamId(1), StreamId(2)],
        entries: vec![
            on_gpu(
                entry(0, OpKind::CopyHostToDevice, "h2d pinned", (0, 1_500)),
                1,
                (1_500, 9_500),
                1 << 20,
            ),
            on_gpu(
                entry(1, OpKind::Launch, "saxpy", (1_500, 4_000)),
                1,
                (9_500, 21_000),
                0,
            ),
            on_gpu(
                entry(2, OpKind::Launch, "reduce<f32>", (4_000, 6_000)),
                2,
                (6_000, 30_000),
                0,
            ),
            entry(3, OpKind::HostWork, "host_work", (6_000, 8_000)),
            entry(4, OpKind::EventQuery, "query", (8_000, 9_000)),
            sync,
        ],
        ranges: Vec::new(),
    }
}

fn events(trace: &Trace) -> Vec<Value> {
    let doc: Value = serde_json::from_str(&render(trace)).expect("valid JSON");
    assert_eq!(doc["displayTimeUnit"], "ns");
    assert_eq!(doc["otherData"]["device"], "Virtual H200");
    assert_eq!(doc["otherData"]["backend"], "virtual");
    doc["traceEvents"]
        .as_array()
        .expect("an event array")
        .clone()
}

fn with_ph<'a>(events: &'a [Value], ph: &'a str) -> impl Iterator<Item = &'a Value> {
    events.iter().filter(move |e| e["ph"] == ph)
}

#[test]
fn lanes_are_named_and_sorted() {
    let events = events(&sample());
    let meta: Vec<_> = with_ph(&events, "M").collect();
    assert_eq!(meta[0]["args"]["name"], "Virtual H200 (virtual)");
    let names: Vec<_> = meta.iter().filter(|e| e["name"] == "thread_name").collect();
    let lanes: Vec<_> = names
        .iter()
        .map(|e| (e["tid"].as_u64().unwrap(), e["args"]["name"].clone()))
        .collect();
    assert_eq!(
        lanes,
        [
            (0, json!("CPU")),
            (1, json!("stream 1")),
            (2, json!("stream 2"))
        ]
    );
    let order: Vec<_> = meta
        .iter()
        .filter(|e| e["name"] == "thread_sort_index")
        .map(|e| e["args"]["sort_index"].clone())
        .collect();
    assert_eq!(order, [json!(0), json!(1), json!(2)]);
}

#[test]
fn complete_events_per_lane_with_times_in_microseconds() {
    let events = events(&sample());
    let count = |tid: u64| with_ph(&events, "X").filter(|e| e["tid"] == tid).count();
    assert_eq!((count(0), count(1), count(2)), (6, 2, 1));
    let kernel = with_ph(&events, "X")
        .find(|e| e["tid"] == 1 && e["name"] == "saxpy")
        .unwrap();
    assert_eq!(
        (kernel["ts"].as_f64(), kernel["dur"].as_f64()),
        (Some(9.5), Some(11.5))
    );
    assert_eq!(kernel["cat"], "launch");
    let call = with_ph(&events, "X")
        .find(|e| e["tid"] == 0 && e["name"] == "h2d pinned")
        .unwrap();
    assert_eq!(
        (call["ts"].as_f64(), call["dur"].as_f64()),
        (Some(0.0), Some(1.5))
    );
    assert_eq!(call["args"]["site"], "src/main.rs:10:5");
    assert_eq!(call["args"]["bytes"], 1 << 20);
}

#[test]
fn blocking_calls_are_red_and_explained() {
    let events = events(&sample());
    let red: Vec<_> = events.iter().filter(|e| e.get("cname").is_some()).collect();
    assert_eq!(red.len(), 1);
    assert_eq!(red[0]["cname"], "terrible");
    assert_eq!(red[0]["cat"], "stream_synchronize,blocking");
    assert_eq!(
        red[0]["args"]["blocking"],
        BlockReason::StreamSynchronize.explain()
    );
    assert_eq!(
        (red[0]["ts"].as_f64(), red[0]["dur"].as_f64()),
        (Some(9.0), Some(22.0))
    );
}

#[test]
fn flows_link_launches_and_copies_to_their_spans() {
    let events = events(&sample());
    let starts: Vec<_> = with_ph(&events, "s").collect();
    let ends: Vec<_> = with_ph(&events, "f").collect();
    assert_eq!((starts.len(), ends.len()), (3, 3));
    for (s, f) in starts.iter().zip(&ends) {
        assert_eq!(
            (s["id"].clone(), s["tid"].clone(), f["bp"].clone()),
            (f["id"].clone(), json!(0), json!("e"))
        );
    }
    let saxpy = ends.iter().find(|f| f["id"] == 1).unwrap();
    assert_eq!(
        (saxpy["tid"].as_u64(), saxpy["ts"].as_f64()),
        (Some(1), Some(15.25))
    );
}

#[test]
fn output_is_deterministic() {
    assert_eq!(render(&sample()), render(&sample()));
}

#[test]
fn snapshot() {
    insta::assert_snapshot!(render(&sample()));
}
