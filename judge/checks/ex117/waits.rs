//! No CPU wait in the loop: between the first copy-in and the last
//! copy-out, the loop only queues work.

use super::workload::{Bench, between};
use gpu::{BlockReason, OpKind};
use judge_harness::{Ctx, Failure};

pub(super) fn no_cpu_wait_in_the_loop(ctx: &Ctx) -> Result<(), Failure> {
    let bench = Bench::open(ctx)?;
    let (_, before, after) = bench.run()?;
    let trace = bench.device.trace();
    let run = between(&trace, before, after);
    let first = run.iter().position(|e| e.op == OpKind::CopyHostToDevice);
    let last = run.iter().rposition(|e| e.op == OpKind::CopyDeviceToHost);
    let (Some(first), Some(last)) = (first, last) else {
        return Ok(());
    };
    let Some(wait) = run[first..last].iter().find(|e| e.blocking.is_some()) else {
        return Ok(());
    };
    let chunk = run[first..last]
        .iter()
        .filter(|e| e.op == OpKind::CopyHostToDevice && e.seq < wait.seq)
        .count()
        - 1;
    let what = match wait.blocking {
        Some(BlockReason::StreamSynchronize) => {
            "a `Stream::synchronize`: it orders the stages by stopping the CPU, which then queues nothing until that stream is idle; record an event on the earlier stage's stream and make the later one `wait_event` for it"
        }
        Some(BlockReason::EventSynchronize) => {
            "an `Event::synchronize`: the CPU stops until the event; `wait_event` on the stream that must wait does the same on the GPU"
        }
        Some(BlockReason::DeviceSynchronize) => {
            "a `Device::synchronize`: it waits for every stream, all three stages drain"
        }
        _ => {
            "a call that makes the CPU wait for the GPU (a read of device memory, a pageable copy)"
        }
    };
    Err(Failure::new(
        "between the first copy-in and the last copy-out, no call that can make the CPU wait",
        format!(
            "`{}` at {} during chunk {chunk}",
            wait.name, wait.site
        ),
    )
    .at(wait.site)
    .detail(format!(
        "{what}; it waited {:.3} ms. Wait once, after the loop, for the last copy-out; see streams-and-events.md#waiting-on-the-gpu-against-waiting-on-the-cpu",
        wait.cpu_ns() as f64 / 1e6
    )))
}
