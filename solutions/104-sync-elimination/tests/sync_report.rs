//! The sync report of the reference solution, as an insta snapshot: the
//! text the judge's `one_wait_per_log_window` check builds from the trace,
//! reviewable as it reads (`cargo insta review`). The report and the
//! workload are the judge's own files, included by path, so this snapshot
//! shows exactly what the check sees.

#[allow(dead_code)]
#[path = "../../../judge/checks/ex104/report.rs"]
mod report;
#[allow(dead_code)]
#[path = "../../../judge/checks/ex104/workload.rs"]
mod workload;

use gpu::{Backend, Device, DeviceOptions};
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
    let work = workload::workload(&decoder);
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
    let calls = report::blocking_calls(&device.trace(), &marks, STEADY_FROM);
    assert_eq!(report::problem(&calls, STEADY_FROM, STEPS, LOG_EVERY), None);
    insta::assert_snapshot!(report::render(&calls, STEADY_FROM, STEPS, LOG_EVERY));
}
