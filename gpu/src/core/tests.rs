//! Unit tests of `core`: what a capture allows, in which order the checks
//! come, and what the race checker learns, call by call.
//!
//! Each test runs a short program on the virtual GPU and writes down what
//! every call returned (its error message in full), then compares the whole
//! log: a change to a capture rule, to the order of the checks or to a race
//! effect shows up as a line that differs.

use crate::{AsView, Backend, Device, DeviceOptions, Result, Stream, SyncDebug};
use std::fmt::Debug;
use std::time::Duration;

fn open() -> Device {
    Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })
    .unwrap()
}

/// A device with two streams: the one that captures, and another.
fn two_streams() -> (Device, Stream, Stream) {
    let device = open();
    let (s, other) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    (device, s, other)
}

/// What the calls of a program returned, one line each.
#[derive(Default)]
struct Log(Vec<String>);

impl Log {
    fn note<T: Debug>(&mut self, what: &str, result: Result<T>) {
        self.0.push(match result {
            Ok(value) => format!("{what}: ok {value:?}"),
            Err(err) => format!("{what}: {err}"),
        });
    }

    /// The trace of `device` from `seq` on: kind, stream, captured.
    fn trace(&mut self, device: &Device, seq: u64) {
        for e in device.trace().since(seq) {
            let stream = e.stream.map_or("-".to_string(), |s| s.to_string());
            let captured = if e.captured { " captured" } else { "" };
            self.0
                .push(format!("  trace {:?} on {stream}{captured}", e.op));
        }
    }

    fn races(&mut self, device: &Device) {
        for race in device.take_races() {
            self.0.push(format!(
                "  race {:?}: {} / {}",
                race.kind, race.current, race.previous
            ));
        }
    }

    fn check(&self, expected: &str) {
        let got = self.0.join("\n");
        assert_eq!(got, expected.trim(), "\n{got}\n");
    }
}

#[test]
fn a_pageable_copy_checks_the_capture_then_the_views_then_blocking() {
    let (device, s, other) = two_streams();
    let x = s.alloc_zeros::<f32>(4).unwrap();
    let y = other.alloc_zeros::<f32>(4).unwrap();
    let gone = s.alloc_zeros::<f32>(4).unwrap();
    let stale = gone.view();
    drop(gone);
    let seq = device.trace_mark();
    drop(y);
    let mut log = Log::default();
    s.begin_capture().unwrap();
    log.note("bad view", s.copy_from_host(&[1.0; 4], stale.slice(0..4)));
    log.note("still capturing", Ok(s.is_capturing()));
    log.note("other stream", other.copy_from_host(&[1.0; 4], &x));
    log.note("capturing stream", s.copy_from_host(&[1.0; 4], &x));
    log.note("kernel", s.fill(&x, 1.0));
    log.note("synchronize", s.synchronize());
    log.note("end", s.end_capture().map(|g| g.len()));
    log.note("still capturing", Ok(s.is_capturing()));
    log.trace(&device, seq);
    log.check(
        "
bad view: `copy to device` at gpu/src/core/tests.rs:78:28 uses device memory [0x1000000400, +16) that is not inside a live allocation; was its buffer freed or dropped?
still capturing: ok true
other stream: `copy to device` at gpu/src/core/tests.rs:80:36 is not allowed while stream 1 is capturing a graph (it would make the CPU wait for the GPU); the capture is now invalidated
capturing stream: the capture on stream 1 was invalidated by `copy to device` at gpu/src/core/tests.rs:80:36; nothing was captured, begin a new capture without that call
kernel: the capture on stream 1 was invalidated by `copy to device` at gpu/src/core/tests.rs:80:36; nothing was captured, begin a new capture without that call
synchronize: `Stream::synchronize` at gpu/src/core/tests.rs:83:31 is not allowed while stream 1 is capturing a graph (it would make the CPU wait for the GPU); the capture is now invalidated
end: the capture on stream 1 was invalidated by `copy to device` at gpu/src/core/tests.rs:80:36; nothing was captured, begin a new capture without that call
still capturing: ok false
  trace Free on 2
  trace BeginCapture on 1",
    );
}

#[test]
fn events_are_edges_of_the_capture_and_frees_illegal_only_on_its_streams() {
    let (device, s, other) = two_streams();
    let x = s.alloc_zeros::<f32>(4).unwrap();
    let e = device.new_event().unwrap();
    let outside = device.new_event().unwrap();
    let mut log = Log::default();
    let seq = device.trace_mark();
    s.begin_capture().unwrap();
    log.note("record elsewhere", other.record(&e));
    log.note("wait elsewhere", other.wait_event(&e));
    log.note("kernel elsewhere", other.fill(&x, 2.0));
    log.note("kernel", s.fill(&x, 1.0));
    log.note("new stream", device.new_stream().map(|s| s.id()));
    log.note("new event", device.new_event().map(drop));
    log.note("record", s.record(&e));
    log.note("wait for it", s.wait_event(&e));
    log.note("record outside", other.record(&outside));
    log.note("wait for that", s.wait_event(&outside));
    log.note("end", s.end_capture().map(|g| g.len()));
    s.begin_capture().unwrap();
    log.note("kernel", s.fill(&x, 3.0));
    x.free();
    log.note("end after a free", s.end_capture().map(|g| g.len()));
    log.trace(&device, seq);
    log.races(&device);
    log.check(
        "
record elsewhere: ok ()
wait elsewhere: ok ()
kernel elsewhere: ok ()
kernel: ok ()
new stream: ok StreamId(3)
new event: ok ()
record: ok ()
wait for it: ok ()
record outside: ok ()
wait for that: `wait_event` at gpu/src/core/tests.rs:120:33 is not allowed while stream 1 is capturing a graph (a stream of the capture waits only for events recorded inside the same capture: wait for this one before `begin_capture`); the capture is now invalidated
end: the capture on stream 1 was invalidated by `wait_event` at gpu/src/core/tests.rs:120:33; nothing was captured, begin a new capture without that call
kernel: ok ()
end after a free: the capture on stream 1 was invalidated by `free` at gpu/src/core/tests.rs:124:7; nothing was captured, begin a new capture without that call
  trace BeginCapture on 1
  trace EventRecord on 2
  trace StreamWaitEvent on 2
  trace Launch on 2
  trace Launch on 1 captured
  trace CreateStream on -
  trace CreateEvent on -
  trace EventRecord on 1
  trace StreamWaitEvent on 1
  trace EventRecord on 2
  trace BeginCapture on 1
  trace Launch on 1 captured
  trace Free on 1
  race Unordered: stream 2 writes it in kernel `fill_f32` at gpu/src/core/tests.rs:113:40 / stream 1 writes it in the zeroing of a new buffer at gpu/src/core/tests.rs:105:15\n  race UnorderedFree: stream 1 writes it in its free at gpu/src/core/tests.rs:124:7 / stream 2 writes it in kernel `fill_f32` at gpu/src/core/tests.rs:113:40",
    );
}

#[test]
fn a_wait_for_an_event_from_outside_the_capture_names_its_own_reason() {
    let device = open();
    let s = device.new_stream().unwrap();
    let e = device.new_event().unwrap();
    let mut log = Log::default();
    s.begin_capture().unwrap();
    log.note("wait", s.wait_event(&e));
    log.note("end", s.end_capture().map(|g| g.len()));
    log.check(
        "
wait: `wait_event` at gpu/src/core/tests.rs:167:24 is not allowed while stream 1 is capturing a graph (a stream of the capture waits only for events recorded inside the same capture: wait for this one before `begin_capture`); the capture is now invalidated
end: the capture on stream 1 was invalidated by `wait_event` at gpu/src/core/tests.rs:167:24; nothing was captured, begin a new capture without that call",
    );
}

#[test]
fn state_errors_leave_the_capture_alone() {
    let (device, s, other) = two_streams();
    let x = s.alloc_zeros::<f32>(4).unwrap();
    s.begin_capture().unwrap();
    s.fill(&x, 1.0).unwrap();
    let graph = s.end_capture().unwrap();
    let mut log = Log::default();
    log.note("end twice", s.end_capture().map(|g| g.len()));
    s.begin_capture().unwrap();
    log.note("begin again", other.begin_capture());
    log.note("launch", graph.launch());
    log.note("end elsewhere", other.end_capture().map(|g| g.len()));
    log.note(
        "host work",
        Ok(()).map(|()| device.host_work(Duration::from_micros(1))),
    );
    log.note("pinned", device.alloc_pinned::<f32>(4).map(|p| p.len()));
    log.note("end", s.end_capture().map(|g| g.len()));
    log.check(
        "
end twice: `end_capture` at gpu/src/core/tests.rs:184:29: stream 1 is not capturing; call `begin_capture` first
begin again: `begin_capture` at gpu/src/core/tests.rs:186:35: stream 1 is already capturing; end that capture first
launch: `Graph::launch` at gpu/src/core/tests.rs:187:30: a graph cannot be launched while a capture is in progress; end the capture first
end elsewhere: `end_capture` at gpu/src/core/tests.rs:188:37: stream 2 is not capturing; call `begin_capture` first
host work: ok ()
pinned: `alloc_pinned` at gpu/src/core/tests.rs:193:31 is not allowed while stream 1 is capturing a graph (allocate pinned memory before the capture begins); the capture is now invalidated
end: the capture on stream 1 was invalidated by `alloc_pinned` at gpu/src/core/tests.rs:193:31; nothing was captured, begin a new capture without that call",
    );
}

#[test]
fn a_capture_refusal_comes_before_sync_debug() {
    let device = open();
    let s = device.new_stream().unwrap();
    let segment = device.alloc_segment(1024).unwrap();
    device.set_sync_debug(SyncDebug::Error);
    let mut log = Log::default();
    log.note("sync", device.synchronize());
    s.begin_capture().unwrap();
    log.note("sync in a capture", device.synchronize());
    log.note("end", s.end_capture().map(|g| g.len()));
    s.begin_capture().unwrap();
    log.note("segment", device.alloc_segment(16).map(|s| s.bytes()));
    log.note("event query", device.new_event().unwrap().query());
    log.note("end", s.end_capture().map(|g| g.len()));
    let pinned = device.alloc_pinned::<f32>(4).unwrap();
    s.begin_capture().unwrap();
    drop(pinned);
    log.note("end after a pinned drop", s.end_capture().map(|g| g.len()));
    let seq = device.trace_mark();
    drop(segment);
    log.trace(&device, seq);
    log.check(
        "
sync: `Device::synchronize` at gpu/src/core/tests.rs:214:29 would block the CPU (the CPU waits until every stream of the device is idle) and sync debug mode is `Error`; use pinned memory and events instead, or `SyncDebug::Warn` to let it through
sync in a capture: `Device::synchronize` at gpu/src/core/tests.rs:216:42 is not allowed while stream 1 is capturing a graph (it would make the CPU wait for the GPU); the capture is now invalidated
end: the capture on stream 1 was invalidated by `Device::synchronize` at gpu/src/core/tests.rs:216:42; nothing was captured, begin a new capture without that call
segment: `alloc_segment` at gpu/src/core/tests.rs:219:32 is not allowed while stream 1 is capturing a graph (allocate device memory before the capture begins); the capture is now invalidated
event query: `Event::query` at gpu/src/core/tests.rs:220:57 is not allowed while stream 1 is capturing a graph (a query observes the GPU from the CPU); the capture is now invalidated
end: the capture on stream 1 was invalidated by `alloc_segment` at gpu/src/core/tests.rs:219:32; nothing was captured, begin a new capture without that call
end after a pinned drop: the capture on stream 1 was invalidated by `free of a pinned buffer` at <drop of a PinnedBuffer>; nothing was captured, begin a new capture without that call
  trace FreeSegment on -",
    );
}

#[test]
fn queries_order_the_cpu_only_when_the_work_is_done() {
    let device = open();
    let s = device.new_stream().unwrap();
    let pinned = device.alloc_pinned::<f32>(4).unwrap();
    let x = s.alloc_zeros::<f32>(4).unwrap();
    let mut log = Log::default();
    s.spin(Duration::from_millis(1)).unwrap();
    s.copy_to_pinned(&x, &pinned).unwrap();
    let e = s.record_event().unwrap();
    log.note("query", s.query());
    log.note("event query", e.query());
    log.note("write", pinned.write(&[1.0; 4]));
    log.races(&device);
    device.host_work(Duration::from_millis(2));
    log.note("query", s.query());
    log.note("write", pinned.write(&[2.0; 4]));
    s.copy_to_pinned(&x, &pinned).unwrap();
    let e = s.record_event().unwrap();
    device.host_work(Duration::from_millis(2));
    log.note("event query", e.query());
    log.note("read", Ok(pinned.to_vec()));
    s.copy_to_pinned(&x, &pinned).unwrap();
    log.note("to_vec", s.to_vec(&x));
    log.note("read", Ok(pinned.to_vec()));
    s.copy_to_pinned(&x, &pinned).unwrap();
    let (start, end) = (s.record_event().unwrap(), s.record_event().unwrap());
    log.note("elapsed", start.elapsed_ms(&end).map(|ms| ms >= 0.0));
    log.note("read", Ok(pinned.to_vec()));
    log.races(&device);
    log.check(
        "
query: ok false
event query: ok false
write: ok ()
  race Unordered: the CPU writes it in a CPU write of pinned memory at gpu/src/core/tests.rs:254:30 / stream 1 writes it in a copy into pinned memory at gpu/src/core/tests.rs:250:7
query: ok true
write: ok ()
event query: ok true
read: ok [0.0, 0.0, 0.0, 0.0]
to_vec: ok [0.0, 0.0, 0.0, 0.0]
read: ok [0.0, 0.0, 0.0, 0.0]
elapsed: ok true
read: ok [0.0, 0.0, 0.0, 0.0]",
    );
}

#[test]
fn a_free_on_another_stream_is_checked_for_reuse() {
    let (device, s, other) = two_streams();
    let x = s.alloc_zeros::<f32>(1024).unwrap();
    let out = other.alloc_zeros::<f32>(1).unwrap();
    other.synchronize().unwrap();
    other.sum_after(Duration::from_millis(1), &x, &out).unwrap();
    let addr = x.addr();
    drop(x);
    let y = s.alloc_zeros::<f32>(1024).unwrap();
    let mut log = Log::default();
    log.note("same address", Ok(y.addr() == addr));
    log.races(&device);
    log.check(
        "
same address: ok true
  race Unordered: stream 2 reads it in kernel `sum_f32` at gpu/src/core/tests.rs:295:11 / stream 1 writes it in the zeroing of a new buffer at gpu/src/core/tests.rs:292:15\n  race UnorderedFree: stream 1 writes it in its free at <drop of a DeviceBuffer> / stream 2 reads it in kernel `sum_f32` at gpu/src/core/tests.rs:295:11
  race ReuseAfterFree: stream 1 writes it in the zeroing of a new buffer at gpu/src/core/tests.rs:298:15 / stream 2 reads it in kernel `sum_f32` at gpu/src/core/tests.rs:295:11",
    );
}

#[test]
fn a_replay_checks_the_views_it_was_captured_with() {
    let device = open();
    let s = device.new_stream().unwrap();
    let x = s.alloc_zeros::<f32>(4).unwrap();
    s.begin_capture().unwrap();
    s.fill(&x, 1.0).unwrap();
    let graph = s.end_capture().unwrap();
    let mut log = Log::default();
    log.note("launch", graph.launch());
    drop(x);
    log.note("launch after the drop", graph.launch());
    log.check(
        "
launch: ok ()
launch after the drop: `Graph::launch` at gpu/src/core/tests.rs:321:45 uses device memory [0x1000000000, +16) that is not inside a live allocation; was its buffer freed or dropped?",
    );
}

#[test]
fn with_the_checks_off_nothing_is_traced_or_reported_but_views_still_are_checked() {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        trace: false,
        race_check: false,
        ..DeviceOptions::default()
    })
    .unwrap();
    let (s, other) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    // The race of `a_free_on_another_stream_is_checked_for_reuse`, unreported.
    let x = s.alloc_zeros::<f32>(1024).unwrap();
    let out = other.alloc_zeros::<f32>(1).unwrap();
    other.sum_after(Duration::from_millis(1), &x, &out).unwrap();
    s.fill(&x, 1.0).unwrap();
    // A graph still remembers what its nodes touch.
    s.begin_capture().unwrap();
    s.spin(Duration::ZERO).unwrap();
    s.fill(&x, 2.0).unwrap();
    let graph = s.end_capture().unwrap();
    let mut log = Log::default();
    log.note("nodes", Ok(graph.len()));
    log.note("launch", graph.launch());
    drop(x);
    log.note("launch after the drop", graph.launch());
    log.note("entries", Ok(device.trace().entries.len()));
    log.races(&device);
    log.check(
        "
nodes: ok 2
launch: ok ()
launch after the drop: `Graph::launch` at gpu/src/core/tests.rs:354:45 uses device memory [0x1000000000, +4096) that is not inside a live allocation; was its buffer freed or dropped?
entries: ok 0",
    );
}
