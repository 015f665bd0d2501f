//! No call in a step can make the CPU wait: every one the trace shows is
//! named by its kind and its line, each kind with its own cause and the
//! chapter's section about it.

use super::support::{BATCH, Run, STEPS, located, run};
use gpu::{BlockReason, CallSite, OpKind, TraceEntry};
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str =
    "each step to only queue work: no call that can make the CPU wait for the GPU";

pub(super) fn the_step_only_queues_work(ctx: &Ctx) -> Result<(), Failure> {
    let run = run(ctx)?;
    ctx.save_timeline(&run.device);
    only_queues(&run)
}

/// The check on the trace of one run.
pub(super) fn only_queues(run: &Run) -> Result<(), Failure> {
    let mut found: Vec<(&TraceEntry, CallSite, String, Option<usize>)> = Vec::new();
    for (t, step) in run.steps.iter().enumerate() {
        for (i, e) in step
            .iter()
            .enumerate()
            .filter(|(_, e)| e.blocking.is_some())
        {
            let (site, what) = located(&step[..i], e);
            if !found.iter().any(|(f, s, _, _)| *s == site && f.op == e.op) {
                // An event waited for right before a write to pinned
                // memory: a ring's wait for a slot, first made in step `t`.
                let slot_wait = (e.op == OpKind::EventSynchronize
                    && step.get(i + 1).is_some_and(|n| n.op == OpKind::HostWrite))
                .then_some(t);
                found.push((e, site, what, slot_wait));
            }
        }
    }
    let Some((_, first, _, _)) = found.first() else {
        return Ok(());
    };
    let slots = pinned_slots(run);
    let line = |(e, site, what, slot_wait): &(&TraceEntry, CallSite, String, Option<usize>)| {
        let times = run
            .steps
            .iter()
            .filter(|s| {
                s.iter()
                    .enumerate()
                    .any(|(i, c)| c.op == e.op && located(&s[..i], c).0 == *site)
            })
            .count();
        let cause = match *slot_wait {
            Some(first) if first < slots => shared_event(first, slots),
            Some(_) => SHALLOW_RING.into(),
            None => cause(e),
        };
        format!("{what}, in {times} of {STEPS} steps: {cause}")
    };
    let actual = if found.len() == 1 {
        line(&found[0])
    } else {
        format!(
            "{} calls in the steps can make the CPU wait; the first, {}",
            found.len(),
            line(&found[0])
        )
    };
    let failure = Failure::new(EXPECTED, actual).at(*first);
    if found.len() == 1 {
        return Err(failure);
    }
    let all: Vec<String> = found.iter().map(|f| format!("- {}", line(f))).collect();
    Err(failure.detail(format!(
        "every call of a step that can wait:\n{}",
        all.join("\n")
    )))
}

/// Why a step waits for an event just before it writes pinned memory: a
/// ring of pinned slots shallower than how far the CPU runs ahead.
const SHALLOW_RING: &str = "a wait for an event, then a write to pinned memory: the step waits for the copy out of the pinned slot it is about to rewrite, because the ring of slots is shallower than how far the CPU runs ahead, and that copy is still queued behind the GPU's work. The wait is right for a ring; its depth is what is wrong: give it a slot for every step the CPU may queue ahead (in this run, all of them: `max_steps` slots), so a slot comes round only once its copy is done (see hidden-syncs.md#pinned-host-memory)";

/// Why a step waits for an event before it writes pinned memory, from
/// step `first` on, when `new` made `slots` pinned slots (more than
/// `first`): it waits for the copy out of another slot than the one it
/// rewrites, since the ring keeps one event for all its slots.
fn shared_event(first: usize, slots: usize) -> String {
    format!(
        "a wait for an event, then a write to pinned memory, from step {first} on, though `new` made {slots} pinned slots and this slot was never written before: the step waits for the copy out of another slot (one event kept for the whole ring, the last copy's), so every step waits for the step before it, which is queued behind the GPU's work. Keep an event per slot, recorded after the copy from that slot, and wait for the slot's own event before rewriting it (see hidden-syncs.md#pinned-host-memory)"
    )
}

/// The pinned buffers of one step's tokens that `new` made: the ring's
/// slots.
fn pinned_slots(run: &Run) -> usize {
    let first_step = run.steps.iter().flatten().map(|e| e.seq).min();
    let bytes = (BATCH * size_of::<i32>()) as u64;
    run.device
        .trace()
        .entries
        .iter()
        .filter(|e| first_step.is_some_and(|s| e.seq < s))
        .filter(|e| e.op == OpKind::AllocPinned && e.bytes == bytes)
        .count()
}

/// Why `e`, a call that can block, makes the CPU wait, what to do instead,
/// and the section that says so.
fn cause(e: &TraceEntry) -> String {
    match (e.op, e.blocking) {
        (_, Some(BlockReason::PinnedFree)) => "a pinned buffer freed in the step (`cuMemFreeHost`), which waits until every stream of the device is idle: a `PinnedBuffer` made in the step and dropped at its end. Allocate the pinned input slots once, in `new`: a ring with a slot for every step the CPU may queue ahead (see hidden-syncs.md#pinned-host-memory)".into(),
        (OpKind::CopyDeviceToHost, Some(BlockReason::PageableDeviceToHost)) if e.bytes <= 8 => format!("a value of {} bytes read back to the CPU, which returns only once the GPU has computed it: a decision taken on the CPU from GPU data. The GPU can take it: finished requests stay in the batch, `flag_eq` marks them, and `outputs_from_history` cuts each output at its first `eos` in `finish` (see hidden-syncs.md#data-dependent-shapes-and-control-flow)", e.bytes),
        (_, Some(BlockReason::PageableDeviceToHost)) => format!("{} bytes read back to a `Vec` every step: a copy into pageable memory returns only once the stream has reached it and the data has arrived. Keep the predictions on the GPU, in a history buffer allocated in `new`, and read it once, in `finish` (see hidden-syncs.md#reading-values)", e.bytes),
        (_, Some(BlockReason::ElapsedTime)) => "`elapsed_ms` in the step, which waits for both events to complete. Keep each step's events and read the times in `finish` (see hidden-syncs.md#timing-gpu-work)".into(),
        (_, Some(BlockReason::PageableHostToDevice)) => "a copy from pageable memory, which the driver must stage, and a large one waits for the stream. Copy from a pinned buffer allocated in `new` (see hidden-syncs.md#pageable-copies)".into(),
        (_, Some(BlockReason::SegmentFree)) => "a raw free (`cuMemFree`), which waits for every stream of the device. Allocate what a step needs once, in `new` (see hidden-syncs.md#allocation-and-free)".into(),
        (_, Some(reason @ (BlockReason::StreamSynchronize | BlockReason::EventSynchronize | BlockReason::DeviceSynchronize))) => format!("an explicit wait: {}. Nothing in a step needs the GPU to be done: stream order runs each step after the one before, and `finish` reads the results (see hidden-syncs.md#cpu-waits-and-gpu-waits)", reason.explain()),
        (_, reason) => format!("a call that can make the CPU wait ({}): a step only queues work", reason.map(BlockReason::explain).unwrap_or_default()),
    }
}
