//! A layer on one stream that reads what another stream uploaded.
//!
//! The producer stream uploads a batch into `x`; the consumer stream runs a
//! layer on `x`. Nothing orders two streams but what the program says, so
//! [`handoff`] says it on the GPU: an event recorded on the producer stream
//! after the upload completes when the upload has, and the consumer stream
//! waits for it before the layer. The CPU never waits: both calls return at
//! once, and the GPU keeps the order by itself.

use gpu::{PinnedBuffer, Result, Stream, View};

// ANCHOR: handoff
/// Uploads `host` into `x` on `producer`, then runs the layer
/// `y = 2 * x + 1` on `consumer`, after the upload. Both views are on the
/// device and as long as `host`. Nothing here waits for the GPU: the
/// caller reads `y` on `consumer` when it needs it.
pub fn handoff(
    producer: &Stream,
    consumer: &Stream,
    host: &PinnedBuffer<f32>,
    x: View<f32>,
    y: View<f32>,
) -> Result<()> {
    producer.copy_from_pinned(host, x)?; // the producer's work
    // Recorded after the upload, on the upload's stream: the event
    // completes when the upload has.
    let uploaded = producer.record_event()?;
    // Queued on the consumer's stream, before the layer: the layer starts
    // once the event completes. The CPU goes on at once.
    consumer.wait_event(&uploaded)?;
    consumer.affine(x, 2.0, 1.0, y) // the consumer's work
}
// ANCHOR_END: handoff
