//! Ranges in the trace and in its Perfetto export: the Chrome trace of an
//! engine-like step with nested ranges parses as the format says, its
//! events nest on every track, every range encloses its calls and their
//! work, and every kernel is tied to its launch by a flow.

use crate::both;
use gpu::{Backend, Device, DeviceOptions, Stream, Trace};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

both!(
    a_step_s_perfetto_export_is_well_formed_and_nests,
    a_step_s_ranges_hold_their_calls_and_their_work,
);

/// One decode step of an engine, marked as `torch.profiler` would mark it:
/// an upload, two layers of attention and MLP kernels (the MLP's on a
/// second stream that waits for the attention), sampling, and the read of
/// the tokens that waits for all of it.
fn step(device: &Device, main: &Stream, side: &Stream) -> gpu::Result<()> {
    let _step = device.range("step");
    let tokens = main.alloc_zeros::<i32>(8)?;
    {
        let _embed = device.range("embed");
        main.copy_from_host(&[1, 2, 3, 4, 5, 6, 7, 8], &tokens)?;
        main.spin(Duration::from_micros(40))?;
    }
    for layer in 0..2 {
        let _layer = device.range(&format!("layer.{layer}"));
        {
            let _attention = device.range("attention");
            main.spin(Duration::from_micros(120))?;
            main.spin(Duration::from_micros(60))?;
        }
        let _mlp = device.range("mlp");
        let ready = main.record_event()?;
        side.wait_event(&ready)?;
        side.spin(Duration::from_micros(150))?;
        main.wait_event(&side.record_event()?)?;
    }
    {
        let _sample = device.range("sample");
        main.spin(Duration::from_micros(30))?;
    }
    let _read = device.range("read tokens");
    main.to_vec(&tokens)?;
    Ok(())
}

/// The trace of a warm-up step and a profiled one, every operation timed
/// on the GPU (on CUDA, events around each: the GPU's rows of a profile).
fn profiled(backend: Backend) -> Trace {
    let device = Device::with_options(DeviceOptions {
        backend,
        gpu_timing: true,
        quiet: true,
        ..DeviceOptions::default()
    })
    .unwrap_or_else(|e| panic!("cannot open the {backend:?} backend: {e}"));
    let (main, side) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    step(&device, &main, &side).unwrap();
    device.synchronize().unwrap();
    device.clear_trace();
    step(&device, &main, &side).unwrap();
    device.synchronize().unwrap();
    device.trace()
}

/// The events of `trace`'s Chrome export, after checking the document's shape.
fn events(trace: &Trace) -> Vec<Value> {
    let doc: Value = serde_json::from_str(&trace.to_chrome_json()).expect("the export is JSON");
    assert_eq!(doc["displayTimeUnit"], "ns");
    let events = doc["traceEvents"]
        .as_array()
        .expect("`traceEvents` is an array");
    for event in events {
        check_event(event);
    }
    events.clone()
}

/// One event has the fields its phase needs, of the format's types.
fn check_event(event: &Value) {
    let ph = event["ph"].as_str().expect("every event has a phase");
    assert!(event["pid"].is_u64() && event["tid"].is_u64(), "{event}");
    assert!(event["name"].is_string(), "{event}");
    match ph {
        "M" => assert!(event["args"].is_object(), "{event}"),
        "X" => {
            assert!(event["ts"].as_f64().is_some_and(f64::is_finite), "{event}");
            assert!(event["dur"].as_f64().is_some_and(|d| d >= 0.0), "{event}");
            assert!(event["cat"].is_string(), "{event}");
        }
        "s" | "f" => {
            assert!(event["ts"].is_f64() || event["ts"].is_u64(), "{event}");
            assert!(event["id"].is_u64(), "{event}");
        }
        other => panic!("an event of phase `{other}`: {event}"),
    }
}

/// `(ts, end)` of a complete event, in µs.
fn span(event: &Value) -> (f64, f64) {
    let ts = event["ts"].as_f64().unwrap();
    (ts, ts + event["dur"].as_f64().unwrap())
}

/// Rounding of the export's µs floats.
const EPS: f64 = 1e-6;

fn within(inner: (f64, f64), outer: (f64, f64)) -> bool {
    outer.0 - EPS <= inner.0 && inner.1 <= outer.1 + EPS
}

/// Every track's complete events nest: any two are disjoint or one holds
/// the other, and where one starts as another ends the file opens the
/// outer first.
fn assert_nested(events: &[Value]) {
    let mut tracks: BTreeMap<u64, Vec<(f64, f64, usize)>> = BTreeMap::new();
    for (i, e) in events.iter().enumerate().filter(|(_, e)| e["ph"] == "X") {
        let (a, b) = span(e);
        tracks
            .entry(e["tid"].as_u64().unwrap())
            .or_default()
            .push((a, b, i));
    }
    for (tid, mut slices) in tracks {
        slices.sort_by(|x, y| {
            x.0.total_cmp(&y.0)
                .then(y.1.total_cmp(&x.1))
                .then(x.2.cmp(&y.2))
        });
        let mut open: Vec<(f64, f64, usize)> = Vec::new();
        for slice in slices {
            while open.last().is_some_and(|top| {
                top.1 <= slice.0 + EPS && !within((slice.0, slice.1), (top.0, top.1))
            }) {
                open.pop();
            }
            if let Some(top) = open.last() {
                assert!(
                    within((slice.0, slice.1), (top.0, top.1)),
                    "track {tid}: {} overlaps {} without nesting",
                    events[slice.2],
                    events[top.2]
                );
            }
            open.push(slice);
        }
    }
}

fn a_step_s_perfetto_export_is_well_formed_and_nests(backend: Backend) {
    let trace = profiled(backend);
    let events = events(&trace);
    assert_nested(&events);
    let ranges: Vec<&Value> = events.iter().filter(|e| e["cat"] == "range").collect();
    let on_cpu = ranges.iter().filter(|e| e["tid"] == 0).count();
    assert_eq!(
        on_cpu,
        trace.ranges.len(),
        "each range once on the CPU's track"
    );
    assert_eq!(
        on_cpu, 10,
        "step, embed, 2 × (layer, attention, mlp), sample, read tokens"
    );
    // On each stream, a range encloses the work its calls queued there.
    for range in ranges.iter().filter(|e| e["tid"] != 0) {
        let (first, end) = (&range["args"]["first_seq"], &range["args"]["end_seq"]);
        let (first, end) = (first.as_u64().unwrap(), end.as_u64().unwrap());
        let work: Vec<&Value> = events
            .iter()
            .filter(|e| e["ph"] == "X" && e["tid"] == range["tid"] && e["cat"] != "range")
            .filter(|e| (first..end).contains(&e["args"]["seq"].as_u64().unwrap()))
            .collect();
        assert!(!work.is_empty(), "{range} holds work");
        assert!(work.iter().all(|w| within(span(w), span(range))), "{range}");
    }
    let on_streams = ranges.len() - on_cpu;
    // The main stream holds the work of every range but the MLPs (theirs
    // is an event's record and wait, which the GPU runs as no span); the
    // side stream the step's, the layers' and the MLPs'.
    assert_eq!(on_streams, 8 + 5);
    // Every kernel is tied to its launch: a flow from inside the launch's
    // CPU slice to inside the kernel's slice on its stream.
    let kernels: Vec<&Value> = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["tid"] != 0 && e["cat"] == "launch")
        .collect();
    assert_eq!(kernels.len(), 8, "the step's kernels");
    for kernel in kernels {
        let seq = &kernel["args"]["seq"];
        let launch = events
            .iter()
            .find(|e| e["ph"] == "X" && e["tid"] == 0 && e["args"]["seq"] == *seq)
            .expect("the launch's CPU slice");
        let flow = |ph: &str| {
            events
                .iter()
                .find(|e| e["ph"] == ph && e["id"] == *seq)
                .unwrap_or_else(|| panic!("a `{ph}` flow event for launch #{seq}"))
        };
        let (start, end) = (flow("s"), flow("f"));
        assert_eq!(start["tid"], 0);
        assert_eq!(end["tid"], kernel["tid"]);
        let at = |e: &Value| e["ts"].as_f64().unwrap();
        assert!(
            within((at(start), at(start)), span(launch)),
            "{start} in {launch}"
        );
        assert!(
            within((at(end), at(end)), span(kernel)),
            "{end} in {kernel}"
        );
    }
}

fn a_step_s_ranges_hold_their_calls_and_their_work(backend: Backend) {
    let trace = profiled(backend);
    let names: Vec<&str> = trace.ranges.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "step",
            "embed",
            "layer.0",
            "attention",
            "mlp",
            "layer.1",
            "attention",
            "mlp",
            "sample",
            "read tokens"
        ]
    );
    let step = &trace.ranges[0];
    assert_eq!(
        (step.first_seq, step.end_seq),
        (0, trace.entries.len() as u64 - 1)
    );
    for range in &trace.ranges {
        for entry in trace.range_entries(range) {
            assert!(
                range.cpu_start_ns <= entry.cpu_start_ns && entry.cpu_end_ns <= range.cpu_end_ns
            );
        }
        for inner in trace.ranges.iter().filter(|r| r.depth > range.depth) {
            let inside = range.first_seq <= inner.first_seq && inner.end_seq <= range.end_seq;
            assert_eq!(
                inside,
                range.encloses(inner),
                "{} and {}",
                range.name,
                inner.name
            );
        }
    }
    // Where the attention's work ran on the GPU: after its launches, and on
    // the main stream only.
    let attention = &trace.ranges[3];
    let gpu = trace
        .range_gpu_span(attention, None)
        .expect("the attention ran on the GPU");
    assert!(gpu.start_ns >= attention.cpu_start_ns);
    assert!(gpu.end_ns - gpu.start_ns >= 180_000);
    let svg = trace.to_svg(&gpu::SvgOptions::default());
    assert!(svg.contains(">ranges</text>") && svg.contains("<title>attention (range, depth 2"));
}
