//! `handoff`s for the suite's own tests, written with the `gpu` crate:
//! another right way (an event made first and recorded later) and the
//! known-wrong ones whose messages `tests.rs` snapshots, each one mistake
//! in the solution or the starter itself.

use gpu::{PinnedBuffer, Result, Stream, View};
use std::time::Duration;

/// The upload, as the solution queues it.
fn upload(producer: &Stream, host: &PinnedBuffer<f32>, x: View<f32>) -> Result<()> {
    producer.copy_from_pinned(host, x)
}

/// The layer, as the solution queues it.
fn layer(on: &Stream, x: View<f32>, y: View<f32>) -> Result<()> {
    on.affine(x, 2.0, 1.0, y)
}

/// Right: an event made up front, recorded after the upload.
pub(super) fn event_made_first(
    p: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    let uploaded = p.device().new_event()?;
    upload(p, h, x)?;
    uploaded.record(p)?;
    c.wait_event(&uploaded)?;
    layer(c, x, y)
}

/// The starter: the CPU waits for the producer stream.
pub(super) fn starter(
    p: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    upload(p, h, x)?;
    p.synchronize()?;
    layer(c, x, y)
}

/// Nothing orders the two streams.
pub(super) fn no_order(
    p: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    upload(p, h, x)?;
    layer(c, x, y)
}

/// The event is recorded before the upload is queued.
pub(super) fn record_before_upload(
    p: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    let uploaded = p.record_event()?;
    upload(p, h, x)?;
    c.wait_event(&uploaded)?;
    layer(c, x, y)
}

/// The event is recorded on the consumer stream.
pub(super) fn record_on_consumer(
    p: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    upload(p, h, x)?;
    let uploaded = c.record_event()?;
    c.wait_event(&uploaded)?;
    layer(c, x, y)
}

/// The wait is queued on the producer stream.
pub(super) fn wait_on_producer(
    p: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    upload(p, h, x)?;
    let uploaded = p.record_event()?;
    p.wait_event(&uploaded)?;
    layer(c, x, y)
}

/// The wait is queued after the layer.
pub(super) fn wait_after_layer(
    p: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    upload(p, h, x)?;
    let uploaded = p.record_event()?;
    layer(c, x, y)?;
    c.wait_event(&uploaded)
}

/// The consumer waits for an event nothing recorded.
pub(super) fn wait_unrecorded(
    p: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    upload(p, h, x)?;
    let uploaded = p.device().new_event()?;
    c.wait_event(&uploaded)?;
    layer(c, x, y)
}

/// The consumer waits for the event before it is recorded.
pub(super) fn wait_before_record(
    p: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    let uploaded = p.device().new_event()?;
    upload(p, h, x)?;
    c.wait_event(&uploaded)?;
    uploaded.record(p)?;
    layer(c, x, y)
}

/// An event recorded that nothing waits for.
pub(super) fn record_without_wait(
    p: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    upload(p, h, x)?;
    let _uploaded = p.record_event()?;
    layer(c, x, y)
}

/// The CPU waits for the event.
pub(super) fn event_synchronize(
    p: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    upload(p, h, x)?;
    p.record_event()?.synchronize()?;
    layer(c, x, y)
}

/// The CPU waits for the device.
pub(super) fn device_synchronize(
    p: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    upload(p, h, x)?;
    p.device().synchronize()?;
    layer(c, x, y)
}

/// The solution, then `y` read back "to check it".
pub(super) fn reads_y_back(
    p: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    upload(p, h, x)?;
    c.wait_event(&p.record_event()?)?;
    layer(c, x, y)?;
    c.to_vec(y).map(drop)
}

/// The CPU polls the producer stream until it is idle.
pub(super) fn polls_the_producer(
    p: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    upload(p, h, x)?;
    while !p.query()? {
        p.device().host_work(Duration::from_micros(10));
    }
    layer(c, x, y)
}

/// The upload on the consumer stream.
pub(super) fn upload_on_consumer(
    _: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    upload(c, h, x)?;
    layer(c, x, y)
}

/// The layer on the producer stream.
pub(super) fn layer_on_producer(
    p: &Stream,
    _: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    upload(p, h, x)?;
    layer(p, x, y)
}

/// No upload at all.
pub(super) fn no_upload(
    _: &Stream,
    c: &Stream,
    _: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    layer(c, x, y)
}

/// No layer at all.
pub(super) fn no_layer(
    p: &Stream,
    _: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    _: View<f32>,
) -> Result<()> {
    upload(p, h, x)
}

/// The layer with the wrong constants.
pub(super) fn wrong_layer(
    p: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    upload(p, h, x)?;
    c.wait_event(&p.record_event()?)?;
    c.affine(x, 2.0, 0.0, y)
}

/// The CPU waits for the consumer stream before the layer: it orders
/// nothing on the producer.
pub(super) fn synchronizes_the_consumer(
    p: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    upload(p, h, x)?;
    c.synchronize()?;
    layer(c, x, y)
}

/// The solution, then the CPU waits for the consumer stream before
/// returning.
pub(super) fn synchronizes_the_consumer_at_the_end(
    p: &Stream,
    c: &Stream,
    h: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    upload(p, h, x)?;
    c.wait_event(&p.record_event()?)?;
    layer(c, x, y)?;
    c.synchronize()
}
