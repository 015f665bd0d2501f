//! What the checks share: the batch, the run of the learner's `handoff`
//! (or a test's stand-in) with the trace of the call, and words for a
//! failed call and a trace entry.

use gpu::{GpuError, PinnedBuffer, RaceReport, Result, Stream, StreamId, TraceEntry, View};
use judge_harness::{Ctx, Failure};
use std::time::Duration;

/// Floats in the batch.
pub(super) const LEN: usize = 1 << 16;
/// The earlier work the producer stream is busy with when `handoff` is called.
pub(super) const BUSY: Duration = Duration::from_micros(300);
/// What `x` and `y` hold before the call: no value of the batch or its layer.
pub(super) const UNWRITTEN: f32 = -7.0;

/// A `handoff` with the exercise's signature.
pub(super) type Handoff =
    fn(&Stream, &Stream, &PinnedBuffer<f32>, View<f32>, View<f32>) -> Result<()>;

/// The `handoff` the checks run: the learner's, unless a test of the suite
/// put another in its place.
fn chosen() -> Handoff {
    #[cfg(test)]
    if let Some(other) = super::tests::replacement() {
        return other;
    }
    order_with_an_event::handoff
}

/// The layer the consumer runs, on the CPU.
pub(super) fn layer(x: f32) -> f32 {
    2.0 * x + 1.0
}

/// One run of the learner's `handoff`.
pub(super) struct Run {
    /// The device, whose trace holds the run.
    pub(super) device: gpu::Device,
    /// The batch uploaded.
    pub(super) batch: Vec<f32>,
    /// `y`, read once on the consumer stream after the call.
    pub(super) y: Vec<f32>,
    /// The races the race checker found during the run.
    pub(super) races: Vec<RaceReport>,
    /// The trace of the call.
    pub(super) calls: Vec<TraceEntry>,
    /// The producer stream.
    pub(super) producer: StreamId,
    /// The consumer stream.
    pub(super) consumer: StreamId,
}

impl Run {
    /// `text` (a race report) with the statement's names for the two
    /// streams, the producer and the consumer, for the device's numbers.
    pub(super) fn name_streams(&self, text: &str) -> String {
        let mut named = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find("stream ") {
            named.push_str(&rest[..at]);
            let after = &rest[at + "stream ".len()..];
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            let name = match after[..digits].parse::<u32>().ok().map(StreamId) {
                Some(id) if id == self.producer => "the producer stream",
                Some(id) if id == self.consumer => "the consumer stream",
                _ => {
                    named.push_str("stream ");
                    rest = after;
                    continue;
                }
            };
            named.push_str(name);
            rest = &after[digits..];
        }
        named.push_str(rest);
        named.replace("the the ", "the ")
    }
}

/// The batch: multiples of a quarter, so that the layer is exact.
fn batch(seed: u64) -> Vec<f32> {
    (0..LEN as u64)
        .map(|i| ((i * 7 + seed) % 1024) as f32 / 4.0)
        .collect()
}

/// Sets up the streams, the pinned batch and `x` and `y` (both
/// [`UNWRITTEN`]), makes the producer stream busy for [`BUSY`], calls
/// `handoff` with its trace marked, then reads `y` on the consumer stream.
pub(super) fn run(ctx: &Ctx) -> std::result::Result<Run, Failure> {
    let device = ctx.device()?;
    let (producer, consumer) = (device.new_stream()?, device.new_stream()?);
    let batch = batch(ctx.seed_for(111));
    let host = device.alloc_pinned::<f32>(LEN)?;
    host.write(&batch)?;
    let x = consumer.alloc_zeros::<f32>(LEN)?;
    let y = consumer.alloc_zeros::<f32>(LEN)?;
    consumer.fill(&x, UNWRITTEN)?;
    consumer.fill(&y, UNWRITTEN)?;
    // A real GPU may load a kernel at its first launch: not in the run.
    let warm = consumer.alloc_zeros::<f32>(1)?;
    consumer.affine(&warm, 2.0, 1.0, &warm)?;
    device.synchronize()?;
    drop(warm);
    device.clear_trace();
    producer.spin(BUSY)?;
    let mark = device.trace_mark();
    chosen()(
        &producer,
        &consumer,
        &host,
        x.slice(0..LEN),
        y.slice(0..LEN),
    )
    .map_err(call_failed)?;
    let end = device.trace_mark();
    let out = consumer.to_vec(&y)?;
    device.synchronize()?;
    let races = device.take_races();
    let trace = device.trace();
    let calls = trace
        .since(mark)
        .iter()
        .take_while(|e| e.seq < end)
        .cloned()
        .collect();
    Ok(Run {
        producer: producer.id(),
        consumer: consumer.id(),
        device,
        batch,
        y: out,
        races,
        calls,
    })
}

/// `handoff` returned an error.
fn call_failed(e: GpuError) -> Failure {
    Failure::new("`handoff` to succeed", format!("`handoff` failed: {e}"))
}

/// One trace entry for a person: what and where.
pub(super) fn describe(e: &TraceEntry) -> String {
    format!("`{}` at {}", e.name, e.site)
}
