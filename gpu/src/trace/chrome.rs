//! Chrome Trace Event Format export (open the file in Perfetto or `chrome://tracing`).
//!
//! One process (pid 1) named after the device and backend. Thread 0 is the
//! CPU lane: every call is a complete (`"X"`) event spanning the time the CPU
//! spent inside it; calls that can block carry the reserved colour name
//! `"terrible"` so they show red. Each stream is a thread of its own (tid =
//! stream id) holding the GPU spans of the work queued on it, and flow arrows
//! (`"s"` → `"f"`) link each launch or copy to its execution.
//!
//! Ranges ([`crate::Device::range`]) are complete events of category
//! `"range"`: on the CPU lane from their open to their close, around the
//! calls made inside them, and on each stream's lane around the work those
//! calls queued there (from its first start to its last end), as Nsight
//! Systems projects an NVTX range onto a stream. Both nest: a range inside
//! another, and a call or a kernel inside its range. Each range comes
//! before the calls and the work it encloses, so a viewer that meets two
//! events with one start time opens the range first.
//!
//! Times are microseconds as floats (the format's unit); `displayTimeUnit` asks
//! the viewer to show nanoseconds. `serde_json` sorts object keys and events
//! are emitted in trace order, so the same trace always gives the same bytes.

use super::{OpKind, Trace, TraceEntry};
use crate::profile::Range;
use serde_json::{Value, json};

/// The process id of the one process in the file.
const PID: u32 = 1;
/// The thread id of the CPU lane. Stream ids start at 1, so they never collide.
const CPU_TID: u32 = 0;
/// The thread id of GPU work that names no stream (not expected, but kept visible).
const NO_STREAM_TID: u32 = u32::MAX;
/// The category of a range's events.
const RANGE_CAT: &str = "range";
/// Chrome's reserved colour name that renders red.
const BLOCKING_COLOR: &str = "terrible";

/// Renders `trace` as Chrome Trace Event JSON (object form).
pub(super) fn render(trace: &Trace) -> String {
    let mut events = metadata(trace);
    events.extend(trace.ranges.iter().map(range_cpu_event));
    events.extend(trace.entries.iter().map(cpu_event));
    events.extend(range_gpu_events(trace));
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

/// The arguments every event of a range carries.
fn range_args(range: &Range) -> Value {
    json!({
        "depth": range.depth,
        "first_seq": range.first_seq,
        "end_seq": range.end_seq,
        "site": range.site.to_string(),
    })
}

/// The CPU lane's complete event for a range: from its open to its close.
fn range_cpu_event(range: &Range) -> Value {
    json!({
        "ph": "X",
        "pid": PID,
        "tid": CPU_TID,
        "name": range.name,
        "cat": RANGE_CAT,
        "ts": us(range.cpu_start_ns),
        "dur": us(range.cpu_ns()),
        "args": range_args(range),
    })
}

/// Each range's complete event on each stream where its calls queued work
/// the GPU ran, in stream order, then in the order the ranges were opened.
fn range_gpu_events(trace: &Trace) -> Vec<Value> {
    let mut events = Vec::new();
    for &stream in &trace.streams {
        for range in &trace.ranges {
            let Some(span) = trace.range_gpu_span(range, Some(stream)) else {
                continue;
            };
            events.push(json!({
                "ph": "X",
                "pid": PID,
                "tid": stream.0,
                "name": range.name,
                "cat": RANGE_CAT,
                "ts": us(span.start_ns),
                "dur": us(span.end_ns.saturating_sub(span.start_ns)),
                "args": range_args(range),
            }));
        }
    }
    events
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
mod tests;
