//! No CPU wait in the steady state: between the second step and the last,
//! the loop only queues work.

use super::workload::{Bench, STEP_KERNEL, between};
use gpu::{BlockReason, OpKind, TraceEntry};
use judge_harness::{Ctx, Failure};

pub(super) fn no_cpu_wait_in_the_steady_state(ctx: &Ctx) -> Result<(), Failure> {
    let bench = Bench::open(ctx)?;
    let (_, before, after) = bench.run()?;
    let trace = bench.device.trace();
    let run = between(&trace, before, after);
    let steps: Vec<usize> = (0..run.len())
        .filter(|&i| run[i].op == OpKind::Launch && run[i].name == STEP_KERNEL)
        .collect();
    let (Some(&second), Some(&last)) = (steps.get(1), steps.last()) else {
        return Ok(());
    };
    let Some(wait) = run[second..last].iter().find(|e| e.blocking.is_some()) else {
        return Ok(());
    };
    let step = steps.iter().filter(|&&i| run[i].seq < wait.seq).count();
    let (what, section) = kind(wait);
    Err(Failure::new(
        "between the second step and the last, no call that can make the CPU wait",
        format!(
            "`{}` at {} after step {}: {what}",
            wait.name,
            wait.site,
            step - 1
        ),
    )
    .at(wait.site)
    .detail(format!(
        "it waited {:.3} ms; while the CPU waits it queues nothing, and the copy engine or the SMs run dry; see {section}",
        wait.cpu_ns() as f64 / 1e6
    )))
}

/// What kind of wait a call is, and the section about it.
fn kind(call: &TraceEntry) -> (&'static str, &'static str) {
    let gpu_waits = "streams-and-events.md#waiting-on-the-gpu-against-waiting-on-the-cpu";
    match call.blocking {
        Some(BlockReason::PageableHostToDevice) => (
            "a copy from pageable memory, which waits for the stream once it is too large to stage; the batches are pinned: `copy_from_pinned` never waits",
            "streams-and-events.md#copies-that-overlap-compute",
        ),
        Some(BlockReason::StreamSynchronize) => (
            "a CPU-side `Stream::synchronize`, which orders the streams by stopping the CPU; record an event on the copy stream and make the compute stream `wait_event` for it",
            gpu_waits,
        ),
        Some(BlockReason::EventSynchronize) => (
            "`Event::synchronize` stops the CPU until the event; `wait_event` on the other stream waits on the GPU instead",
            gpu_waits,
        ),
        Some(BlockReason::DeviceSynchronize) => (
            "a `Device::synchronize`, which waits for every stream",
            gpu_waits,
        ),
        Some(BlockReason::PageableDeviceToHost) => (
            "device data read to the host inside the loop; read the outputs once, after it",
            "hidden-syncs.md#reading-values",
        ),
        _ => ("a call that can make the CPU wait for the GPU", gpu_waits),
    }
}
