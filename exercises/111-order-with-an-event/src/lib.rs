//! A layer on one stream that reads what another stream uploaded.
//!
//! The producer stream uploads a batch into `x`; the consumer stream runs a
//! layer on `x`. As given, [`handoff`] orders the two by making the CPU
//! wait for the producer stream between them: the layer's result is right,
//! and the CPU queues nothing while it waits. Order them on the GPU instead,
//! with an event (see `README.md`).

use gpu::{PinnedBuffer, Result, Stream, View};

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
    // TODO: the CPU waits here until the upload is done, so that the layer
    // starts after it. Order the two on the GPU instead: record an event on
    // `producer` after the upload and make `consumer` wait for it.
    producer.synchronize()?;
    consumer.affine(x, 2.0, 1.0, y) // the consumer's work
}
