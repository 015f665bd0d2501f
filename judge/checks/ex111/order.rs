//! The order, read from the trace of the call: an event recorded on the
//! producer stream after the upload, and a wait for it on the consumer
//! stream before the layer. Each way of getting it wrong has its cause.

use super::support::{Run, describe, run};
use gpu::{OpKind, TraceEntry};
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str = "the upload on the producer stream, then an event recorded on the producer stream, a `wait_event` for it on the consumer stream, and the layer on the consumer stream";

pub(super) fn an_event_orders_the_streams(ctx: &Ctx) -> Result<(), Failure> {
    ordered(&run(ctx)?)
}

/// The check on the trace of one run.
pub(super) fn ordered(run: &Run) -> Result<(), Failure> {
    let find = |f: &dyn Fn(&TraceEntry) -> bool| run.calls.iter().find(|e| f(e));
    let fail = |actual: String, at: &TraceEntry| Err(Failure::new(EXPECTED, actual).at(at.site));
    let Some(upload) = find(&|e| e.op == OpKind::CopyHostToDevice) else {
        return Err(Failure::new(
            EXPECTED,
            "`handoff` queued no upload: `producer.copy_from_pinned(host, x)` is the producer's work",
        ));
    };
    if upload.stream != Some(run.producer) {
        return fail(
            format!(
                "the upload, {}, is queued on the consumer stream: one stream then does both, in order, and nothing is left to order across streams. The upload is the producer's work: keep it on the producer stream and order the layer after it with an event",
                describe(upload)
            ),
            upload,
        );
    }
    let Some(layer) = find(&|e| e.op == OpKind::Launch && e.name == "affine_f32") else {
        return Err(Failure::new(
            EXPECTED,
            "`handoff` launched no layer: `consumer.affine(x, 2.0, 1.0, y)` is the consumer's work",
        ));
    };
    if layer.stream != Some(run.consumer) {
        return fail(
            format!(
                "the layer, {}, is queued on the producer stream: the caller reads `y` on the consumer stream, which nothing orders after it. The layer is the consumer's work: keep it on the consumer stream and order it after the upload with an event",
                describe(layer)
            ),
            layer,
        );
    }
    let on = |op: OpKind, stream| move |e: &&TraceEntry| e.op == op && e.stream == Some(stream);
    let waits: Vec<&TraceEntry> = run
        .calls
        .iter()
        .filter(on(OpKind::StreamWaitEvent, run.consumer))
        .filter(|e| e.seq < layer.seq)
        .collect();
    let records: Vec<&TraceEntry> = run
        .calls
        .iter()
        .filter(on(OpKind::EventRecord, run.producer))
        .filter(|e| e.seq > upload.seq)
        .collect();
    if waits.iter().any(|w| records.iter().any(|r| r.seq < w.seq)) {
        return Ok(());
    }
    let any_wait = find(&|e| e.op == OpKind::StreamWaitEvent);
    let any_record = find(&|e| e.op == OpKind::EventRecord);
    match (any_wait, waits.first(), any_record, records.first()) {
        (None, _, None, _) => Err(nothing_on_the_gpu(run, upload, layer)),
        (Some(w), None, _, _) if w.stream != Some(run.consumer) => fail(
            format!(
                "the wait, {}, is queued on the producer stream: a wait holds back only the work queued after it on its own stream, so the layer on the consumer stream waits for nothing. Call `wait_event` on the consumer stream",
                describe(w)
            ),
            w,
        ),
        (Some(w), None, _, _) => fail(
            format!(
                "the consumer stream waits at {}, after the layer is queued at {}: a wait holds back only the work queued after it, and the layer was queued before. Call `wait_event` before `affine`",
                w.site, layer.site
            ),
            w,
        ),
        (None, _, Some(r), _) => fail(
            format!(
                "an event is recorded, {}, and no stream waits for it: a recorded event orders nothing until a stream waits for it. Make the consumer stream wait for it (`consumer.wait_event(&event)`) before the layer",
                describe(r)
            ),
            r,
        ),
        (_, Some(w), None, _) => fail(
            format!(
                "the consumer stream waits at {} for an event nothing recorded: an event never recorded is already complete, so the wait holds nothing back. Record it on the producer stream after the upload first (`producer.record_event()`)",
                w.site
            ),
            w,
        ),
        (_, Some(_), Some(r), None) if r.stream != Some(run.producer) => {
            let which = if r.stream == Some(run.consumer) {
                "the consumer stream"
            } else {
                "a stream other than the producer"
            };
            fail(
                format!(
                    "the event is recorded on {which}, {}: it completes when that stream's earlier work has, which says nothing about the upload. Record it on the producer stream, after the upload",
                    describe(r)
                ),
                r,
            )
        }
        (_, Some(w), Some(r), None) if r.seq < upload.seq => fail(
            format!(
                "the event is recorded at {}, before the upload is queued at {}: it completes when the work queued before it has, and the upload came after. Record it after `copy_from_pinned`; the consumer's wait at {} then waits for the upload",
                r.site, upload.site, w.site
            ),
            r,
        ),
        (_, Some(w), Some(r), _) => fail(
            format!(
                "the consumer stream waits at {} before the event it waits for is recorded at {}: a wait takes the event as it stands when the wait is queued. Record the event first, then wait for it",
                w.site, r.site
            ),
            w,
        ),
    }
}

/// Neither an event nor a wait: the layer is ordered by the CPU's wait, or
/// by nothing (a wait for the consumer stream, or one made before the
/// upload or after the layer, orders nothing between the two).
fn nothing_on_the_gpu(run: &Run, upload: &TraceEntry, layer: &TraceEntry) -> Failure {
    let sync = run.calls.iter().find(|e| {
        matches!(
            e.op,
            OpKind::StreamSynchronize | OpKind::EventSynchronize | OpKind::DeviceSynchronize
        )
    });
    let orders_nothing = sync.and_then(|s| {
        if s.op == OpKind::StreamSynchronize && s.stream == Some(run.consumer) {
            Some("a wait for the consumer stream, which does not hold the upload")
        } else if s.seq < upload.seq {
            Some("made before the upload is queued")
        } else if s.seq > layer.seq {
            Some("made after the layer is queued")
        } else {
            None
        }
    });
    if let (Some(s), Some(why)) = (sync, orders_nothing) {
        return Failure::new(
            EXPECTED,
            format!(
                "nothing orders the layer, {}, after the upload, {}: no event is recorded, and the CPU's wait at {} ({}) is {why}, so it orders nothing between the two streams either, and the layer may read `x` before the upload has written it. Record an event on the producer stream after the upload and make the consumer stream wait for it before the layer",
                describe(layer),
                describe(upload),
                s.site,
                s.name
            ),
        )
        .at(s.site);
    }
    match sync {
        Some(s) => Failure::new(
            EXPECTED,
            format!(
                "no event orders the streams: the CPU does, waiting at {} ({}) before it queues the layer. That is correct and slow: the CPU queues nothing while it waits. Record an event on the producer stream after the upload and make the consumer stream wait for it, on the GPU",
                s.site, s.name
            ),
        )
        .at(s.site),
        None => Failure::new(
            EXPECTED,
            format!(
                "nothing orders the layer, {}, after the upload: no event is recorded and no stream waits for one, so the consumer stream may run the layer while the upload is still queued behind the producer's earlier work. Record an event on the producer stream after the upload and make the consumer stream wait for it",
                describe(layer)
            ),
        )
        .at(layer.site),
    }
}
