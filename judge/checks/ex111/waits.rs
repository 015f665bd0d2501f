//! The CPU never waits inside `handoff`: each kind of call that makes it
//! wait, read from the trace, has its own cause.

use super::support::{Run, describe, run};
use gpu::{OpKind, TraceEntry};
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str =
    "`handoff` to only queue work: no call that can make the CPU wait for the GPU";

pub(super) fn the_cpu_never_waits(ctx: &Ctx) -> Result<(), Failure> {
    never_waits(&run(ctx)?)
}

/// The check on the trace of one run.
pub(super) fn never_waits(run: &Run) -> Result<(), Failure> {
    match run.calls.iter().find_map(|e| cause(run, e).map(|c| (e, c))) {
        None => Ok(()),
        Some((e, why)) => Err(Failure::new(EXPECTED, format!("{}: {why}", describe(e))).at(e.site)),
    }
}

/// Why `e` makes the CPU wait, if it does.
fn cause(run: &Run, e: &TraceEntry) -> Option<String> {
    Some(match e.op {
        OpKind::StreamSynchronize if e.stream == Some(run.consumer) => {
            let layer = run
                .calls
                .iter()
                .find(|c| c.op == OpKind::Launch && c.name == "affine_f32");
            match layer {
                Some(layer) if layer.seq < e.seq => format!(
                    "the CPU waits for the consumer stream after the layer is queued at {}, so `handoff` returns only once the layer has run (and the upload before it), and the CPU queues nothing meanwhile. The order between the streams is the GPU's to keep, with the event; `y` is ready for whatever the caller queues on the consumer stream next, and the caller reads it when it needs it: remove the synchronize",
                    layer.site
                ),
                _ => "the CPU waits for the consumer stream, which does not hold the upload (it is queued on the producer stream): the wait orders nothing between the two streams, and the CPU queues nothing meanwhile. Order the layer after the upload on the GPU: record an event on the producer stream after the upload and call `wait_event` for it on the consumer stream before the layer".into(),
            }
        }
        OpKind::StreamSynchronize => "the CPU waits until the whole stream is idle, earlier work included (here the producer's 300 µs of it), and queues nothing meanwhile. The consumer stream can wait by itself, on the GPU: record an event on the producer stream after the upload and call `wait_event` for it on the consumer stream".into(),
        OpKind::EventSynchronize => "the CPU waits for the event: the right event, the wrong waiter. Make the consumer stream wait for it instead (`consumer.wait_event(&event)`); the call returns at once and the GPU holds the layer back".into(),
        OpKind::DeviceSynchronize => "the CPU waits until every stream of the device is idle, and queues nothing meanwhile. The consumer stream can wait for the upload alone, on the GPU: an event recorded on the producer stream after the upload, and `wait_event` on the consumer stream".into(),
        OpKind::CopyDeviceToHost | OpKind::HostRead => "the data comes back to the CPU, which must wait for it: `handoff` needs nothing on the CPU, and the caller reads `y` when it needs it".into(),
        OpKind::StreamQuery | OpKind::EventQuery => "the CPU asks whether the GPU is done: asked until it is, a query is a wait by another name. The consumer stream can wait by itself, with `wait_event`".into(),
        _ => {
            let reason = e.blocking?;
            format!("a call that can make the CPU wait ({reason}): `handoff` only queues work")
        }
    })
}
