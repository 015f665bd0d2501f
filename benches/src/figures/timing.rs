//! The CPU and GPU chapter's timeline of a measurement: exercise 105's
//! reference `measure` timing a workload like the judge's (a 5 ms kernel,
//! then 1 ms of CPU work, each run), drawn from the virtual GPU's trace.

use gpu::{Backend, Device, DeviceOptions, Stream, SvgOptions};
use std::time::Duration;
use time_it::{Matmul, Plan};

/// One warm-up run (its first call slow, as a cold start is) and three
/// timed runs: the CPU queues each run in a millisecond and runs ahead, the
/// GPU runs the kernels back to back, and each pair of events brackets one
/// kernel.
pub(super) fn measurement() -> String {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })
    .expect("the virtual GPU always opens");
    let stream = device.new_stream().expect("a stream");
    device.clear_trace();
    let mut calls = 0;
    let mut run = |s: &Stream| {
        let gpu_time = if calls == 0 { 10 } else { 5 };
        calls += 1;
        s.spin(Duration::from_millis(gpu_time))?;
        s.device().host_work(Duration::from_millis(1));
        Ok(())
    };
    let plan = Plan { warmup: 1, reps: 3 };
    let work = Matmul {
        m: 4096,
        n: 4096,
        k: 4096,
    };
    time_it::measure(&stream, plan, work, &mut run).expect("the measurement runs");
    device.trace().to_svg(&SvgOptions {
        width: 1000,
        title: Some(
            "Timing with events: a warm-up run, then three runs, each between a start and an end event"
                .to_string(),
        ),
        window_ns: None,
    })
}
