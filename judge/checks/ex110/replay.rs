//! Each step, read from the trace: one graph launch, and nothing that
//! allocates, captures, runs the step eagerly or waits for the GPU. Each
//! kind of call found there has its own cause.

use super::support::{Run, describe, run};
use gpu::{OpKind, TraceEntry};
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str = "each step to be a copy into the static input, one graph launch and a copy out of the static output, queued without waiting: no eager `decode_step`, no allocation, no capture, no call that waits for the GPU";

pub(super) fn each_step_is_one_replay(ctx: &Ctx) -> Result<(), Failure> {
    let run = run(ctx)?;
    ctx.save_timeline(&run.device);
    replays(&run)
}

/// The check on the trace of one run.
pub(super) fn replays(run: &Run) -> Result<(), Failure> {
    for (s, calls) in run.steps.iter().enumerate() {
        if let Some((e, why)) = calls.iter().find_map(|e| cause(e).map(|c| (e, c))) {
            let times = run
                .steps
                .iter()
                .filter(|calls| calls.iter().any(|c| cause(c).is_some()))
                .count();
            return Err(Failure::new(
                EXPECTED,
                format!(
                    "step {s}: {}, in {times} of {} steps: {why}",
                    describe(e),
                    run.steps.len()
                ),
            )
            .at(e.site));
        }
        let replays: Vec<&TraceEntry> = calls
            .iter()
            .filter(|e| e.op == OpKind::GraphLaunch)
            .collect();
        if replays.len() != 1 {
            let failure = Failure::new(
                EXPECTED,
                format!(
                    "step {s}: {} graph launches: one step is one replay of the graph `new` captured",
                    replays.len()
                ),
            );
            return Err(match replays.get(1) {
                Some(second) => failure.at(second.site),
                None => failure,
            });
        }
    }
    Ok(())
}

/// Why `e` does not belong in a step, if it does not.
fn cause(e: &TraceEntry) -> Option<String> {
    Some(match e.op {
        OpKind::Launch if e.name == "decode_step" && !e.captured => "the step runs `decode_step` eagerly, a launch of its own: the graph `new` captured is the step, and launching it is all a step does on the GPU besides the two copies".into(),
        OpKind::Alloc | OpKind::AllocPinned => format!(
            "a fresh buffer ({} bytes) in every step: the graph still reads and writes the addresses it captured, so tokens copied into a new buffer never reach it (and a static buffer replaced by a new one is freed under the graph). Copy into the static input allocated once, in `new`",
            e.bytes
        ),
        OpKind::BeginCapture | OpKind::EndCapture => "a capture in the step: capture once, in `new`; a step only replays".into(),
        OpKind::StreamSynchronize | OpKind::EventSynchronize | OpKind::DeviceSynchronize => "the CPU waits for the GPU in every step: stream order already runs the copy out after the replay and the next step after this one, so no wait is needed; the caller reads `next` when it needs it".into(),
        OpKind::CopyDeviceToHost | OpKind::CopyHostToDevice => "the tokens travel through host memory: `tokens`, the static buffers and `next` are all on the device, so `stream.copy` moves them there, without the CPU".into(),
        OpKind::HostRead => "the CPU reads host memory the GPU wrote: the step needs nothing on the CPU".into(),
        _ => {
            let reason = e.blocking?;
            format!("a call that can make the CPU wait ({reason}): a step only queues work")
        }
    })
}
