//! A step allocates nothing: every allocation the trace shows in a step is
//! named by its kind and its line.

use super::support::{Run, STEPS, describe, run, steps_with};
use gpu::{OpKind, TraceEntry};
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str =
    "no allocation in a step: what a step touches allocated once, in `new`, and reused";

pub(super) fn nothing_is_allocated_in_a_step(ctx: &Ctx) -> Result<(), Failure> {
    allocates_nothing(&run(ctx)?)
}

/// The check on the trace of one run.
pub(super) fn allocates_nothing(run: &Run) -> Result<(), Failure> {
    let Some(e) = run.steps.iter().flatten().find(|e| cause(e).is_some()) else {
        return Ok(());
    };
    let times = steps_with(run, |c| c.site == e.site && c.op == e.op);
    let mut why = cause(e).unwrap_or_default().to_string();
    let step = run.steps.iter().find(|s| s.iter().any(|c| c.seq == e.seq));
    let freed = step.is_some_and(|s| s.iter().any(|c| c.op == OpKind::Free && c.seq > e.seq));
    if !freed {
        why = why.replace(" (and freed at its end)", " (and kept past it)");
    }
    let actual = format!(
        "{} allocates {} bytes, in {times} of {STEPS} steps: {why}",
        describe(e),
        e.bytes
    );
    Err(Failure::new(EXPECTED, actual).at(e.site))
}

/// Why the allocation `e` does not belong in a step, if `e` is one.
fn cause(e: &TraceEntry) -> Option<&'static str> {
    Some(match e.op {
        OpKind::AllocPinned => {
            "pinned memory allocated in a step (`cuMemHostAlloc`): pinning pages is slow, CUDA lists it among the implicit synchronizations, and the buffer's drop (`cuMemFreeHost`) waits for the device. Allocate the pinned input buffers once, in `new` (see hidden-syncs.md#pinned-host-memory)"
        }
        OpKind::Alloc => {
            "a device buffer allocated in a step (and freed at its end): allocate it once, in `new`, and reuse it; a stream-ordered allocation does not wait, but the pool behind it gives the memory back at every synchronize, so a step that allocates may pay the driver again (see hidden-syncs.md#allocation-and-free)"
        }
        OpKind::AllocSegment => {
            "a raw segment allocated in a step (`cuMemAlloc`), slow by itself, and its free (`cuMemFree`) waits for the device. Allocate it once, in `new` (see hidden-syncs.md#allocation-and-free)"
        }
        _ => return None,
    })
}
