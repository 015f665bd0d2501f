use super::*;
use crate::{Backend, OpKind};
use std::time::Duration;

fn device() -> Device {
    Device::open(Backend::Virtual).expect("the virtual GPU opens")
}

#[test]
fn a_range_spans_the_calls_made_inside_it_and_nests() {
    let device = device();
    let stream = device.new_stream().unwrap();
    let before = device.trace_mark();
    {
        let _step = device.range("step");
        stream.spin(Duration::from_micros(30)).unwrap();
        {
            let _attention = device.range("attention");
            stream.spin(Duration::from_micros(50)).unwrap();
        }
        stream.synchronize().unwrap();
    }
    let trace = device.trace();
    let [step, attention] = &trace.ranges[..] else {
        panic!("two ranges: {:?}", trace.ranges);
    };
    assert_eq!((step.name.as_str(), step.depth), ("step", 0));
    assert_eq!((attention.name.as_str(), attention.depth), ("attention", 1));
    assert_eq!((step.first_seq, step.end_seq), (before, before + 3));
    assert_eq!(trace.range_entries(attention).len(), 1);
    assert!(step.encloses(attention));
    assert!(!attention.encloses(step));
    // The step's CPU time ends after the synchronize, which waited for both kernels.
    let sync = &trace.range_entries(step)[2];
    assert_eq!(sync.op, OpKind::StreamSynchronize);
    assert!(step.cpu_end_ns >= sync.cpu_end_ns);
    let gpu = trace.range_gpu_span(attention, Some(stream.id())).unwrap();
    assert!((50_000..55_000).contains(&(gpu.end_ns - gpu.start_ns)));
    let whole = trace.range_gpu_span(step, None).unwrap();
    assert!(whole.start_ns < gpu.start_ns && whole.end_ns == gpu.end_ns);
}

#[test]
fn a_guard_kept_past_its_parent_s_closes_with_it() {
    let device = device();
    let stream = device.new_stream().unwrap();
    let outer = device.range("outer");
    let inner = device.range("inner");
    stream.spin(Duration::from_micros(5)).unwrap();
    drop(outer);
    stream.spin(Duration::from_micros(5)).unwrap();
    drop(inner);
    let trace = device.trace();
    assert_eq!(trace.ranges[0].end_seq, trace.ranges[1].end_seq);
    assert_eq!(trace.ranges[1].end_seq - trace.ranges[1].first_seq, 1);
    assert!(trace.ranges[0].encloses(&trace.ranges[1]));
}

#[test]
fn an_open_range_ends_where_the_trace_is_read() {
    let device = device();
    let stream = device.new_stream().unwrap();
    let _open = device.range("open");
    stream.spin(Duration::from_micros(5)).unwrap();
    let trace = device.trace();
    assert_eq!(trace.range_entries(&trace.ranges[0]).len(), 1);
}

#[test]
fn clearing_the_trace_keeps_only_the_open_ranges() {
    let device = device();
    let stream = device.new_stream().unwrap();
    drop(device.range("done"));
    let open = device.range("open");
    stream.spin(Duration::from_micros(5)).unwrap();
    device.clear_trace();
    stream.spin(Duration::from_micros(5)).unwrap();
    drop(open);
    let trace = device.trace();
    assert_eq!(trace.ranges.len(), 1);
    assert_eq!((trace.ranges[0].first_seq, trace.ranges[0].end_seq), (0, 1));
}

#[test]
fn ranges_past_the_limits_are_not_kept() {
    let mut ranges = Ranges::default();
    let site = CallSite::internal("test");
    let places: Vec<usize> = (0..MAX_DEPTH + 2)
        .map(|d| ranges.push(&format!("r{d}"), site, 0, 0))
        .collect();
    assert_eq!(ranges.snapshot(1, 0).len(), MAX_DEPTH as usize);
    ranges.pop(places[0], 1, 0);
    let long = "é".repeat(MAX_NAME);
    ranges.push(&long, site, 2, 0);
    let kept = ranges.snapshot(3, 0);
    assert_eq!(kept.last().unwrap().name.len(), MAX_NAME);
    assert_eq!(kept.last().unwrap().depth, 0);
}

#[test]
fn a_trace_without_ranges_reads_as_before() {
    let device = device();
    let trace = device.trace();
    let mut json = serde_json::to_value(&trace).unwrap();
    json.as_object_mut().unwrap().remove("ranges");
    let back: Trace = serde_json::from_value(json).unwrap();
    assert_eq!(back, trace);
}
