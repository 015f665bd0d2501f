//! The sync report of the reference solution, as an insta snapshot: the
//! text the judge's `one_wait_per_log_window` check builds from the trace,
//! reviewable as it reads (`cargo insta review`), and shown in the chapter.
//! The report and the workload are the suite's own modules, so this
//! snapshot shows exactly what the check sees. Two more snapshots list every
//! call of one step inside a window and of the step that ends it: the shape
//! of a steady-state step, with the one wait at the end of the window.

use super::report;
use super::workload::{self, LOG_EVERY, STEADY_FROM, STEPS};
use gpu::{Backend, Trace};
use sync_elimination::Server;

#[test]
fn the_steady_state_waits_once_per_log_window() {
    let device = crate::tests::device(Backend::Virtual);
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
    let _snapshots = crate::tests::snapshots(104).bind_to_scope();
    insta::assert_snapshot!(
        "the_steady_state_waits_once_per_log_window",
        report::render(&calls, STEADY_FROM, STEPS, LOG_EVERY)
    );
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

/// A loop of `query()` until the GPU is done is a wait, with its own
/// diagnosis and its line; one query in a step is not.
#[test]
fn a_cpu_that_polls_waits_and_the_report_says_so() {
    use super::report::{blocking_calls, problem, render};
    let device = crate::tests::device(gpu::Backend::Virtual);
    let s = device.new_stream().unwrap();
    let start = device.trace_mark();
    s.spin(std::time::Duration::from_micros(200)).unwrap();
    let done = s.record_event().unwrap();
    let poll_line = line!() + 1;
    while !done.query().unwrap() {}
    let between = device.trace_mark();
    s.spin(std::time::Duration::from_micros(200)).unwrap();
    let _ = s.record_event().unwrap().query().unwrap();
    let end = device.trace_mark();
    s.synchronize().unwrap();
    let calls = blocking_calls(&device.trace(), &[start, between, end], 0);
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!((calls[0].step, calls[0].site.line), (0, poll_line));
    assert!(calls[0].polls >= 3, "{calls:?}");
    let (what, call) = problem(&calls, 0, 2, 1).expect("polling is a problem");
    assert!(what.contains("polls `query()` in a loop"), "{what}");
    assert_eq!(call.map(|c| c.site.line), Some(poll_line));
    assert!(render(&calls, 0, 2, 1).contains("times in a step"));
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(104);
}
