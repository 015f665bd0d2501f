//! The workload every check runs: eight pinned chunks of 4 MiB, a layer of
//! 80 µs, and three streams of one device.
//!
//! Element `j` of chunk `k` is `(j + 5 k) % 13`: small integers, so that
//! `2 x + 1` is exact in `f32`, and a different pattern per chunk, so that
//! an output that holds another chunk's result tells which one.

use gpu::{Device, PinnedBuffer, Stream, Trace, TraceEntry};
use judge_harness::{Ctx, Failure};
use pipeline::{Layer, Streams};
use std::time::Duration;

/// Chunks per run.
pub(crate) const CHUNKS: usize = 8;
/// Elements per chunk: 4 MiB of `f32`.
pub(crate) const CHUNK_LEN: usize = 1 << 20;
/// The layer the checks run.
pub(crate) const LAYER: Layer = Layer {
    step: Duration::from_micros(80),
};
/// The kernel that ends the layer, as the trace names it.
pub(crate) const LAYER_KERNEL: &str = "affine_f32";
/// The kernel that starts the layer, as the trace names it.
pub(crate) const SPIN_KERNEL: &str = "spin";

/// The learner's `run`, as the checks call it.
pub(crate) type Run = fn(
    &Layer,
    &[PinnedBuffer<f32>],
    &[PinnedBuffer<f32>],
    Streams<'_>,
) -> gpu::Result<Vec<Vec<f32>>>;

/// The `run` the checks call: the learner's, or the one a suite's test put
/// in its place.
fn chosen() -> Run {
    #[cfg(test)]
    if let Some(other) = super::tests::replacement() {
        return other;
    }
    pipeline::run
}

/// Element `j` of chunk `k`.
pub(crate) fn value(k: usize, j: usize) -> f32 {
    ((j + 5 * k) % 13) as f32
}

/// What chunk `k`'s output must hold: the layer of each element.
pub(crate) fn expected(k: usize, len: usize) -> Vec<f32> {
    (0..len).map(|j| 2.0 * value(k, j) + 1.0).collect()
}

/// The entries of `trace` from mark `before` up to mark `after`: one run's.
pub(crate) fn between(trace: &Trace, before: u64, after: u64) -> Vec<&TraceEntry> {
    trace
        .since(before)
        .iter()
        .take_while(|e| e.seq < after)
        .collect()
}

/// A device, its three streams, the chunks and the outputs in pinned memory.
pub(crate) struct Bench {
    pub(crate) device: Device,
    pub(crate) copy_in: Stream,
    pub(crate) compute: Stream,
    pub(crate) copy_out: Stream,
    pub(crate) chunks: Vec<PinnedBuffer<f32>>,
    pub(crate) outputs: Vec<PinnedBuffer<f32>>,
}

impl Bench {
    /// Opens the judge's device with the workload's eight chunks.
    pub(crate) fn open(ctx: &Ctx) -> Result<Self, Failure> {
        Self::open_on(ctx.device()?, CHUNKS)
    }

    /// `count` chunks of the workload on `device`, and as many outputs.
    pub(crate) fn open_on(device: Device, count: usize) -> Result<Self, Failure> {
        let streams = [
            device.new_stream()?,
            device.new_stream()?,
            device.new_stream()?,
        ];
        let mut chunks = Vec::with_capacity(count);
        let mut outputs = Vec::with_capacity(count);
        for k in 0..count {
            let chunk = device.alloc_pinned::<f32>(CHUNK_LEN)?;
            let data: Vec<f32> = (0..CHUNK_LEN).map(|j| value(k, j)).collect();
            chunk.write(&data)?;
            chunks.push(chunk);
            outputs.push(device.alloc_pinned::<f32>(CHUNK_LEN)?);
        }
        let [copy_in, compute, copy_out] = streams;
        Ok(Self {
            device,
            copy_in,
            compute,
            copy_out,
            chunks,
            outputs,
        })
    }

    /// Runs the learner's loop; returns its results and the trace marks
    /// before and after it.
    pub(crate) fn run(&self) -> Result<(Vec<Vec<f32>>, u64, u64), Failure> {
        let before = self.device.trace_mark();
        let streams = Streams {
            copy_in: &self.copy_in,
            compute: &self.compute,
            copy_out: &self.copy_out,
        };
        let results = chosen()(&LAYER, &self.chunks, &self.outputs, streams)
            .map_err(|e| Failure::new("`run` to succeed", e.to_string()))?;
        Ok((results, before, self.device.trace_mark()))
    }
}
