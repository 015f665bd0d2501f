//! The sync report of the reference solution, as an insta snapshot: the
//! text the judge's `one_wait_per_log_window` check builds from the trace,
//! reviewable as it reads (`cargo insta review`). The report and the
//! workload are the judge's own files, included by path, so this snapshot
//! shows exactly what the check sees. Two more snapshots list every call of
//! one step inside a window and of the step that ends it: the shape of a
//! steady-state step, with the one wait at the end of the window.

#[allow(dead_code)]
#[path = "../../../judge/checks/ex104/report.rs"]
mod report;
#[allow(dead_code)]
#[path = "../../../judge/checks/ex104/workload.rs"]
mod workload;

use gpu::{Backend, Device, DeviceOptions, Trace};
use sync_elimination::Server;
use workload::{LOG_EVERY, STEADY_FROM, STEPS};

#[test]
fn the_steady_state_waits_once_per_log_window() {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })
    .unwrap();
    let (compute, copy) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let decoder = workload::decoder(&compute).unwrap();
    let work = workload::workload(&decoder, workload::SEED);
    let mut server = Server::new(&decoder, &compute, &copy, work.config()).unwrap();
    let mut marks = Vec::new();
    for inputs in &work.inputs {
        marks.push(device.trace_mark());
        server.step(inputs).unwrap();
    }
    marks.push(device.trace_mark());
    let report = server.finish().unwrap();
    assert_eq!(report.outputs, work.outputs);
    assert_eq!(report.logs, work.logs);
    let trace = device.trace();
    let calls = report::blocking_calls(&trace, &marks, STEADY_FROM);
    assert_eq!(report::problem(&calls, STEADY_FROM, STEPS, LOG_EVERY), None);
    insta::assert_snapshot!(report::render(&calls, STEADY_FROM, STEPS, LOG_EVERY));
    // One step inside a window and the step that ends it: every call, in order.
    let inside = STEADY_FROM + 1;
    let boundary = STEADY_FROM + LOG_EVERY - 1;
    insta::assert_snapshot!("a_step_inside_a_window", calls_of(&trace, &marks, inside));
    insta::assert_snapshot!(
        "the_step_that_ends_a_window",
        calls_of(&trace, &marks, boundary)
    );
}

/// The calls of step `t`: name, stream, bytes, line, and whether it can block.
fn calls_of(trace: &Trace, marks: &[u64], t: usize) -> String {
    let mut text = format!("step {t}:\n");
    for e in trace
        .since(marks[t])
        .iter()
        .take_while(|e| e.seq < marks[t + 1])
    {
        let stream = e.stream.map_or("-".to_string(), |s| s.to_string());
        let blocks = if e.blocking.is_some() {
            "  CAN BLOCK"
        } else {
            ""
        };
        text += &format!(
            "  line {:>3}  stream {stream}  {:<26} {:>5} bytes{blocks}\n",
            e.site.line, e.name, e.bytes
        );
    }
    text
}
