//! Known-wrong answers for the suite's own tests: `diagnose`s that make
//! the mistakes of `judge/variants/121` on the solution's answer, and
//! engines that keep one regression each (the judge's own step with one
//! change, on the judge's stream).

use super::engine::{Change, EXERCISE, LAYERS, Rig};
use super::fix::Stepper;
use find_the_regression::{Regression, diagnose};
use gpu::{OpKind, PinnedBuffer, Stream, Trace};

/// Points at the call before the new sync: the launch of what it waits for.
pub(super) fn the_launch_before_the_sync(before: &Trace, after: &Trace) -> Regression {
    match diagnose(before, after) {
        Regression::NewSync { seq } => Regression::NewSync { seq: seq - 1 },
        other => other,
    }
}

/// Names the free of an allocation in the loop a new sync: it waits.
pub(super) fn the_free_as_a_new_sync(before: &Trace, after: &Trace) -> Regression {
    match diagnose(before, after) {
        Regression::AllocationInLoop { seq } => {
            let free = after.entries.iter().find(|e| e.op == OpKind::FreeSegment);
            Regression::NewSync {
                seq: free.map_or(seq, |e| e.seq),
            }
        }
        other => other,
    }
}

/// Names the layer's range, not the innermost one.
pub(super) fn the_enclosing_range(before: &Trace, after: &Trace) -> Regression {
    match diagnose(before, after) {
        Regression::LaunchBound { range } => Regression::LaunchBound {
            range: range
                .rsplit_once('.')
                .map_or(range.clone(), |(layer, _)| layer.to_string()),
        },
        other => other,
    }
}

/// The kind of call whose CPU time grew the most, its longest call a new sync.
pub(super) fn the_longest_call_kind(before: &Trace, after: &Trace) -> Regression {
    let cpu = |t: &Trace, op: OpKind| {
        t.entries
            .iter()
            .filter(|e| e.op == op)
            .map(|e| e.cpu_ns())
            .sum::<u64>()
    };
    let grew = after
        .entries
        .iter()
        .map(|e| e.op)
        .max_by_key(|&op| cpu(after, op).saturating_sub(cpu(before, op)));
    let longest = after
        .entries
        .iter()
        .filter(|e| Some(e.op) == grew)
        .max_by_key(|e| e.cpu_ns());
    Regression::NewSync {
        seq: longest.map_or(0, |e| e.seq),
    }
}

/// The judge's step with one change, on the judge's stream; it returns no tokens.
struct Changed {
    rig: Rig,
    change: Change,
}

impl Stepper for Changed {
    fn step(&mut self, _next: &PinnedBuffer<f32>) -> gpu::Result<Vec<i32>> {
        self.rig.step(self.change)?;
        Ok(Vec::new())
    }
}

/// An engine of the judge's step with `change`.
fn changed(stream: &Stream, change: Change) -> gpu::Result<Box<dyn Stepper>> {
    Ok(Box::new(Changed {
        rig: Rig::on(stream.clone(), EXERCISE)?,
        change,
    }))
}

/// The reference step itself (no tokens).
pub(super) fn unchanged(stream: &Stream, _: &PinnedBuffer<f32>) -> gpu::Result<Box<dyn Stepper>> {
    changed(stream, Change::None)
}

/// A `synchronize` after layer 1.
pub(super) fn synchronizes(
    stream: &Stream,
    _: &PinnedBuffer<f32>,
) -> gpu::Result<Box<dyn Stepper>> {
    changed(
        stream,
        Change::Sync {
            layer: 1,
            read: false,
        },
    )
}

/// A raw scratch segment in every step.
pub(super) fn allocates(stream: &Stream, _: &PinnedBuffer<f32>) -> gpu::Result<Box<dyn Stepper>> {
    changed(stream, Change::Alloc { layer: None })
}

/// The copy on the compute stream.
pub(super) fn copies_on_compute(
    stream: &Stream,
    _: &PinnedBuffer<f32>,
) -> gpu::Result<Box<dyn Stepper>> {
    changed(stream, Change::CopyOnCompute)
}

/// The copy after the layers, and the sampling after it.
pub(super) fn copy_waits(stream: &Stream, _: &PinnedBuffer<f32>) -> gpu::Result<Box<dyn Stepper>> {
    changed(stream, Change::CopyWaitsForCompute)
}

/// The last layer's MLP as 1 µs kernels.
pub(super) fn splits(stream: &Stream, _: &PinnedBuffer<f32>) -> gpu::Result<Box<dyn Stepper>> {
    changed(
        stream,
        Change::Split {
            layer: LAYERS - 1,
            attention: false,
        },
    )
}
