//! The legacy default stream of the chapter "Streams and events", written
//! out. The `gpu` crate has no default stream: every stream it creates is
//! non-blocking, ordered with the others only by the events a program
//! records. [`LegacyDefault`] is an ordinary stream plus the waits CUDA adds
//! around every operation on the legacy default stream, so that the virtual
//! GPU can show what they do to two streams that otherwise run side by side.

use gpu::{Device, Result, Stream};
use std::time::Duration;

const US: Duration = Duration::from_micros(1);

// ANCHOR: legacy
/// A stand-in for the legacy default stream: work queued on it waits for
/// all the work queued so far on the blocking streams, and the work queued
/// on them afterwards waits for it.
pub struct LegacyDefault<'a> {
    stream: Stream,
    blocking: &'a [&'a Stream],
}

impl<'a> LegacyDefault<'a> {
    /// A new stand-in that synchronizes with `blocking`.
    pub fn new(device: &Device, blocking: &'a [&'a Stream]) -> Result<Self> {
        let stream = device.new_stream()?;
        Ok(Self { stream, blocking })
    }

    /// Queues `work` on the stand-in, between the waits the driver adds.
    pub fn run(&self, work: impl FnOnce(&Stream) -> Result<()>) -> Result<()> {
        for other in self.blocking {
            self.stream.wait_event(&other.record_event()?)?; // it waits for them
        }
        work(&self.stream)?;
        let done = self.stream.record_event()?;
        for other in self.blocking {
            other.wait_event(&done)?; // and they wait for it
        }
        Ok(())
    }
}
// ANCHOR_END: legacy

/// The two runs of [`stray_kernel`], each from its first launch until both
/// streams were idle.
#[derive(Clone, Debug, PartialEq)]
pub struct Serialized {
    /// Nothing on the legacy default stream, ns.
    pub overlapped_ns: f64,
    /// One fill on the legacy default stream, ns.
    pub serialized_ns: f64,
}

// ANCHOR: stray
/// Stream `a` runs one 600 µs kernel while stream `b` runs six of 80 µs,
/// side by side; then the same again with one small fill on the legacy
/// default stream after `b`'s second kernel.
pub fn stray_kernel(device: &Device) -> Result<Serialized> {
    let (a, b) = (device.new_stream()?, device.new_stream()?);
    let blocking = [&a, &b];
    let legacy = LegacyDefault::new(device, &blocking)?;
    let flag = b.alloc_zeros::<f32>(1)?;
    let run = |stray: bool| -> Result<f64> {
        device.synchronize()?;
        let start = device.now();
        a.spin(600 * US)?;
        for i in 0..6 {
            b.spin(80 * US)?;
            if stray && i == 1 {
                legacy.run(|s| s.fill(&flag, 1.0))?; // a fill without a stream named
            }
        }
        device.synchronize()?;
        Ok((device.now() - start).as_nanos() as f64)
    };
    Ok(Serialized {
        overlapped_ns: run(false)?,
        serialized_ns: run(true)?,
    })
}
// ANCHOR_END: stray

#[cfg(test)]
mod tests {
    use super::*;
    use gpu::Backend;

    #[test]
    fn one_fill_on_the_legacy_stream_serializes_the_two_streams() {
        let device = Device::open(Backend::Virtual).unwrap();
        let run = stray_kernel(&device).unwrap();
        // Side by side the run is the long kernel; serialized, `b`'s last
        // four kernels wait for it.
        assert!(run.overlapped_ns < 700_000.0, "{run:?}");
        assert!(run.serialized_ns > 900_000.0, "{run:?}");
        assert!(device.take_races().is_empty());
    }
}
