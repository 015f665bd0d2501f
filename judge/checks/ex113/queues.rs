//! Each step, read from the trace: one graph launch, and nothing that
//! allocates, captures, runs the step eagerly or waits for the GPU; an
//! empty batch queues nothing. Each kind of call found has its own cause.

use super::support::{Run, describe, run};
use gpu::{OpKind, TraceEntry};
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str = "each step of 1 to 8 rows to queue copies, the padding and one graph launch without waiting: no eager `decode_step`, no allocation, no capture, no call that waits for the GPU; an empty batch to queue nothing";

/// The section on what a step may hold.
const SECTION: &str = "cuda-graphs.md#fixed-addresses-and-shapes";

pub(super) fn each_step_only_queues(ctx: &Ctx) -> Result<(), Failure> {
    let run = run(ctx)?;
    ctx.save_timeline(&run.device);
    queues(&run)
}

/// The check on the trace of one run.
pub(super) fn queues(run: &Run) -> Result<(), Failure> {
    let fail = |actual: String, at: Option<&TraceEntry>| {
        let failure = Failure::new(EXPECTED, format!("{actual}; see {SECTION}"));
        Err(match at {
            Some(e) => failure.at(e.site),
            None => failure,
        })
    };
    for (s, step) in run.steps.iter().enumerate() {
        let n = step.rows();
        if let Some((e, why)) = step.calls.iter().find_map(|e| cause(e).map(|c| (e, c))) {
            return fail(
                format!("step {s}, a batch of {n} rows: {}: {why}", describe(e)),
                Some(e),
            );
        }
        if n == 0 {
            if let Some(first) = step.calls.first() {
                return fail(
                    format!(
                        "step {s}, an empty batch, queued {} ({} call(s) in all): a batch of no rows is no step. Return `Ok(())` before picking a bucket; a graph launched for it computes padding alone",
                        describe(first),
                        step.calls.len()
                    ),
                    Some(first),
                );
            }
            continue;
        }
        let replays: Vec<&TraceEntry> = step
            .calls
            .iter()
            .filter(|e| e.op == OpKind::GraphLaunch)
            .collect();
        if replays.len() != 1 {
            return fail(
                format!(
                    "step {s}, a batch of {n} rows: {} graph launches: one step is one launch of its bucket's graph",
                    replays.len()
                ),
                replays.get(1).copied(),
            );
        }
    }
    Ok(())
}

/// Why `e` does not belong in a step, if it does not.
fn cause(e: &TraceEntry) -> Option<String> {
    Some(match e.op {
        OpKind::Launch if e.name == "decode_step" => "the step runs `decode_step` eagerly, a launch of its own: the bucket's graph is the step, and launching it is all a step does on the GPU besides the copies and the padding".into(),
        OpKind::Alloc | OpKind::AllocPinned => format!(
            "a fresh buffer ({} bytes) in a step: the graphs read and write the static buffers they were captured with, so a new buffer is work no graph sees. Copy the batch into the static input and pad it there",
            e.bytes
        ),
        OpKind::BeginCapture | OpKind::EndCapture => "a capture in a step: the graphs are captured once, in `new`, one per bucket; a step only launches the bucket's".into(),
        OpKind::StreamSynchronize | OpKind::EventSynchronize | OpKind::DeviceSynchronize => "the CPU waits for the GPU in a step: stream order already runs the copy out after the launch and the next step after this one, so no wait is needed".into(),
        OpKind::CopyDeviceToHost | OpKind::CopyHostToDevice => "the tokens travel through host memory: the batch, the static buffers and `next` are all on the device, so `stream.copy` and `stream.fill` do it without the CPU".into(),
        OpKind::HostRead => "the CPU reads host memory the GPU wrote: the step needs nothing on the CPU".into(),
        _ => {
            let reason = e.blocking?;
            format!("a call that can make the CPU wait ({reason}): a step only queues work")
        }
    })
}
