//! The workload every check runs: eight pinned batches of 16 MiB, a model
//! step of 0.6 ms, and two streams of one device.
//!
//! A batch's elements are 0 or 1, a different pattern per batch, so that
//! every sum is exact in `f32` and tells the batches apart: a step that read
//! another batch's data, or zeros, gets another sum.

use gpu::{Device, PinnedBuffer, Stream, Trace, TraceEntry};
use judge_harness::{Ctx, Failure};
use prefetch::Model;
use std::time::Duration;

/// Batches per run.
pub(crate) const BATCHES: usize = 8;
/// Elements per batch: 16 MiB of `f32`.
pub(crate) const BATCH_LEN: usize = 4 << 20;
/// The model the checks run.
pub(crate) const MODEL: Model = Model {
    step: Duration::from_micros(600),
};

/// The kernel of a model step, as the trace names it.
pub(crate) const STEP_KERNEL: &str = "sum_f32";

/// The entries of `trace` from mark `before` up to mark `after`: one run's.
pub(crate) fn between(trace: &Trace, before: u64, after: u64) -> Vec<&TraceEntry> {
    trace
        .since(before)
        .iter()
        .take_while(|e| e.seq < after)
        .collect()
}

/// Element `j` of batch `b`: 1 every `b + 2` elements, else 0.
fn value(b: usize, j: usize) -> f32 {
    if j.is_multiple_of(b + 2) { 1.0 } else { 0.0 }
}

/// The sum of batch `b`: what its step must output.
pub(crate) fn expected_sum(b: usize) -> f32 {
    BATCH_LEN.div_ceil(b + 2) as f32
}

/// A device, its two streams, and the batches in pinned memory.
pub(crate) struct Bench {
    pub(crate) device: Device,
    pub(crate) copy: Stream,
    pub(crate) compute: Stream,
    pub(crate) batches: Vec<PinnedBuffer<f32>>,
}

impl Bench {
    /// Opens the judge's device and fills the batches.
    pub(crate) fn open(ctx: &Ctx) -> Result<Self, Failure> {
        Self::open_on(ctx.device()?)
    }

    /// Fills the batches on `device`.
    pub(crate) fn open_on(device: Device) -> Result<Self, Failure> {
        let data: Vec<Vec<f32>> = (0..BATCHES)
            .map(|b| (0..BATCH_LEN).map(|j| value(b, j)).collect())
            .collect();
        Self::with_batches(device, &data)
    }

    /// Opens the judge's device with batches holding `data` (none, or of
    /// any lengths) instead of the eight of the workload.
    pub(crate) fn open_with(ctx: &Ctx, data: &[Vec<f32>]) -> Result<Self, Failure> {
        Self::with_batches(ctx.device()?, data)
    }

    /// Two streams of `device` and batches in pinned memory holding `data`.
    fn with_batches(device: Device, data: &[Vec<f32>]) -> Result<Self, Failure> {
        let (copy, compute) = (device.new_stream()?, device.new_stream()?);
        let mut batches = Vec::with_capacity(data.len());
        for values in data {
            let host = device.alloc_pinned::<f32>(values.len())?;
            host.write(values)?;
            batches.push(host);
        }
        Ok(Self {
            device,
            copy,
            compute,
            batches,
        })
    }

    /// Runs the learner's loop; returns its outputs and the trace marks
    /// before and after it.
    pub(crate) fn run(&self) -> Result<(Vec<f32>, u64, u64), Failure> {
        let before = self.device.trace_mark();
        let outputs = prefetch::run(&MODEL, &self.batches, &self.copy, &self.compute)
            .map_err(|e| Failure::new("`run` to succeed", e.to_string()))?;
        Ok((outputs, before, self.device.trace_mark()))
    }
}
