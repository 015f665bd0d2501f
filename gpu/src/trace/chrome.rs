//! Chrome Trace Event Format export (open the file in Perfetto or `chrome://tracing`).
//!
//! One process (pid 1) named after the device and backend. Thread 0 is the
//! CPU lane: every call is a complete (`"X"`) event spanning the time the CPU
//! spent inside it; calls that can block carry the reserved colour name
//! `"terrible"` so they show red. Each stream is a thread of its own (tid =
//! stream id) holding the GPU spans of the work queued on it, and flow arrows
//! (`"s"` → `"f"`) link each launch or copy to its execution.
//!
//! Times are microseconds as floats (the format's unit); `displayTimeUnit` asks
//! the viewer to show nanoseconds. `serde_json` sorts object keys and events
//! are emitted in trace order, so the same trace always gives the same bytes.

use super::{OpKind, Trace, TraceEntry};
use serde_json::{Value, json};

/// The process id of the one process in the file.
const PID: u32 = 1;
/// The thread id of the CPU lane. Stream ids start at 1, so they never collide.
const CPU_TID: u32 = 0;
/// The thread id of GPU work that names no stream (not expected, but kept visible).
const NO_STREAM_TID: u32 = u32::MAX;
/// Chrome's reserved colour name that renders red.
const BLOCKING_COLOR: &str = "terrible";

/// Renders `trace` as Chrome Trace Event JSON (object form).
pub(super) fn render(trace: &Trace) -> String {
    let mut events = metadata(trace);
    events.extend(trace.entries.iter().map(cpu_event));
    events.extend(trace.entries.iter().filter_map(gpu_event));
    events.extend(trace.entries.iter().flat_map(flow_events));
    let doc = json!({
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {
            "backend": trace.backend.to_string(),
            "device": trace.device,
        },
    });
    serde_json::to_string_pretty(&doc).expect("a JSON value always serializes")
}

/// Nanoseconds to the format's microseconds.
fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

/// The op kind as it serializes (snake_case), e.g. `copy_host_to_device`.
fn op_name(op: OpKind) -> String {
    match serde_json::to_value(op) {
        Ok(Value::String(s)) => s,
        _ => format!("{op:?}"),
    }
}

/// The GPU lane an entry's span goes on.
fn gpu_tid(entry: &TraceEntry) -> u32 {
    entry.stream.map_or(NO_STREAM_TID, |s| s.0)
}

/// Every GPU lane, in stream creation order, then any stream seen only in entries.
fn gpu_lanes(trace: &Trace) -> Vec<u32> {
    let mut lanes: Vec<u32> = trace.streams.iter().map(|s| s.0).collect();
    let mut extra: Vec<u32> = trace
        .entries
        .iter()
        .filter(|e| e.gpu.is_some())
        .map(gpu_tid)
        .filter(|tid| !lanes.contains(tid))
        .collect();
    extra.sort_unstable();
    extra.dedup();
    lanes.extend(extra);
    lanes
}

/// A lane's display name.
fn lane_name(tid: u32) -> String {
    match tid {
        CPU_TID => "CPU".to_owned(),
        NO_STREAM_TID => "GPU (no stream)".to_owned(),
        n => format!("stream {n}"),
    }
}

/// A metadata (`"M"`) event.
fn meta(name: &str, tid: u32, args: Value) -> Value {
    json!({ "ph": "M", "pid": PID, "tid": tid, "name": name, "args": args })
}

/// Process and thread names, and the lane order: CPU first, then streams.
fn metadata(trace: &Trace) -> Vec<Value> {
    let process = format!("{} ({})", trace.device, trace.backend);
    let mut events = vec![
        meta("process_name", CPU_TID, json!({ "name": process })),
        meta("process_sort_index", CPU_TID, json!({ "sort_index": 0 })),
    ];
    let lanes = std::iter::once(CPU_TID).chain(gpu_lanes(trace));
    for (index, tid) in lanes.enumerate() {
        events.push(meta("thread_name", tid, json!({ "name": lane_name(tid) })));
        events.push(meta(
            "thread_sort_index",
            tid,
            json!({ "sort_index": index }),
        ));
    }
    events
}

/// The CPU lane's complete event for one call.
fn cpu_event(entry: &TraceEntry) -> Value {
    let op = op_name(entry.op);
    let mut args = json!({
        "seq": entry.seq,
        "op": op,
        "stream": entry.stream.map(|s| s.0),
        "bytes": entry.bytes,
        "site": entry.site.to_string(),
        "captured": entry.captured,
    });
    let mut cat = op;
    if let Some(reason) = entry.blocking {
        args["blocking"] = json!(reason.explain());
        cat.push_str(",blocking");
    }
    let mut event = json!({
        "ph": "X",
        "pid": PID,
        "tid": CPU_TID,
        "name": entry.name,
        "cat": cat,
        "ts": us(entry.cpu_start_ns),
        "dur": us(entry.cpu_ns()),
        "args": args,
    });
    if entry.blocking.is_some() {
        event["cname"] = json!(BLOCKING_COLOR);
    }
    event
}

/// The stream lane's complete event for a call the GPU ran, if it did.
fn gpu_event(entry: &TraceEntry) -> Option<Value> {
    let span = entry.gpu?;
    Some(json!({
        "ph": "X",
        "pid": PID,
        "tid": gpu_tid(entry),
        "name": entry.name,
        "cat": op_name(entry.op),
        "ts": us(span.start_ns),
        "dur": us(span.end_ns.saturating_sub(span.start_ns)),
        "args": {
            "seq": entry.seq,
            "op": op_name(entry.op),
            "bytes": entry.bytes,
            "site": entry.site.to_string(),
        },
    }))
}

/// Whether a call gets an arrow from the CPU to its GPU span.
fn has_flow(op: OpKind) -> bool {
    matches!(
        op,
        OpKind::Launch
            | OpKind::GraphLaunch
            | OpKind::CopyHostToDevice
            | OpKind::CopyDeviceToHost
            | OpKind::CopyDeviceToDevice
    )
}

/// The flow start (in the CPU call) and end (in the GPU span) for a launch or copy.
///
/// Each end sits at the middle of its slice, so it binds to that slice and not to
/// a neighbour that ends or starts at the same instant.
fn flow_events(entry: &TraceEntry) -> Vec<Value> {
    let Some(span) = entry.gpu.filter(|_| has_flow(entry.op)) else {
        return Vec::new();
    };
    let mid = |a: u64, b: u64| us(a + b.saturating_sub(a) / 2);
    let common = json!({ "pid": PID, "name": "launch", "cat": "flow", "id": entry.seq });
    let mut start = common.clone();
    start["ph"] = json!("s");
    start["tid"] = json!(CPU_TID);
    start["ts"] = json!(mid(entry.cpu_start_ns, entry.cpu_end_ns));
    let mut end = common;
    end["ph"] = json!("f");
    end["bp"] = json!("e");
    end["tid"] = json!(gpu_tid(entry));
    end["ts"] = json!(mid(span.start_ns, span.end_ns));
    vec![start, end]
}

#[cfg(test)]
mod tests {
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
}
