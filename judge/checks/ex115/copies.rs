//! The copies do not wait, read from the trace: the slots allocated before
//! the first step and never again, every copy to the host into pinned
//! memory, and between two launches no blocking call but one event wait.
//! Each kind of call found in the way has its own cause.

use super::support::{
    PROMPTS, STEPS, chosen, describe, launches, pinned_copies, pinned_reads, setup,
};
use gpu::{BlockReason, OpKind, TraceEntry};
use judge_harness::polling::polling_loops;
use judge_harness::{Ctx, Failure};
use std::time::Duration;

pub(super) fn the_copies_do_not_wait(ctx: &Ctx) -> Result<(), Failure> {
    let (device, stream, decoder) = setup(ctx)?;
    chosen()(&stream, &decoder, &PROMPTS, STEPS, Duration::ZERO)?;
    ctx.save_timeline(&device);
    copies_in(&device.trace().entries)
}

/// What the check expects, in words.
const EXPECTED: &str = "two pinned slots allocated before the first `decode_step` launch and never again; each step's tokens copied into one with `copy_to_pinned`; between two launches, no blocking call but one event wait";

/// One launch per step, or the check has nothing to read.
pub(super) fn launch_count(launches: usize) -> Failure {
    Failure::new(
        format!("one `decode_step` launch per step: {STEPS} for {STEPS} steps"),
        format!(
            "{launches} `decode_step` launch(es): the given loop launches one step per iteration; keep `generate` as it is"
        ),
    )
}

/// The check on the trace of one run of [`STEPS`] steps.
pub(super) fn copies_in(entries: &[TraceEntry]) -> Result<(), Failure> {
    let at = launches(entries);
    if at.len() != STEPS {
        return Err(launch_count(at.len()));
    }
    let loop_entries = &entries[at[0]..];
    // The slots' own drop, once the last slot is read, frees them: not a step's.
    let last_read = pinned_reads(loop_entries)
        .last()
        .map(|&i| loop_entries[i].seq);
    let before_last_read = |e: &TraceEntry| last_read.is_none_or(|seq| e.seq < seq);
    let fail = |actual: String, e: &TraceEntry| Err(Failure::new(EXPECTED, actual).at(e.site));
    let pinned_op = |e: &&TraceEntry| {
        e.op == OpKind::AllocPinned || (e.op == OpKind::FreePinned && before_last_read(e))
    };
    if let Some(e) = loop_entries.iter().find(pinned_op) {
        let allocs = loop_entries
            .iter()
            .filter(|e| e.op == OpKind::AllocPinned)
            .count();
        return fail(
            format!(
                "{}, and {allocs} pinned allocation(s) after the first launch: allocating pinned memory is itself a synchronization (the driver page-locks and maps the pages, and CUDA lists it among the implicit synchronizations), and freeing it (`cuMemFreeHost`, when a `PinnedBuffer` drops) waits for the whole device. Allocate the two slots once, in `TokenSlots::new`, and reuse them step after step",
                describe(e)
            ),
            e,
        );
    }
    if let Some(e) = loop_entries
        .iter()
        .find(|e| e.blocking == Some(BlockReason::PageableDeviceToHost))
    {
        return fail(
            format!(
                "{}: the tokens are copied into pageable memory (a `Vec`, a pageable slot). The driver stages such a copy through a pinned buffer of its own and returns only when the GPU has run everything queued before it, the step just launched included, so the copy cannot overlap that step. Copy into a pinned slot (`copy_to_pinned`), which returns at once",
                describe(e)
            ),
            e,
        );
    }
    if let Some(e) = loop_entries
        .iter()
        .find(|e| e.op == OpKind::CopyHostToDevice)
    {
        return fail(
            format!(
                "{}: a copy from the host between the steps. A copy from pageable memory is staged by the driver and can wait for the stream, and nothing a step needs comes from the CPU: step s + 1 decodes from step s's output, on the GPU",
                describe(e)
            ),
            e,
        );
    }
    let copies = pinned_copies(entries).len();
    if copies != STEPS {
        return fail(
            format!(
                "{copies} copies into pinned memory for {STEPS} steps: `queue` copies each step's tokens into its slot once, with `copy_to_pinned`"
            ),
            &entries[at[0]],
        );
    }
    // The last window ends with the last read: the slots' drop comes after.
    let stop = pinned_reads(entries)
        .last()
        .map_or(entries.len(), |&r| r + 1);
    for k in 0..STEPS {
        let end = at.get(k + 1).copied().unwrap_or(stop).max(at[k] + 1);
        if let Some(failure) = window(k, &entries[at[k] + 1..end]) {
            return Err(failure);
        }
    }
    Ok(())
}

/// What is wrong between the launch of step `k` and the next, if anything.
fn window(k: usize, window: &[TraceEntry]) -> Option<Failure> {
    let fail = |actual: String, e: &TraceEntry| Some(Failure::new(EXPECTED, actual).at(e.site));
    let after = format!("after the launch of step {k}");
    if let Some(e) = window
        .iter()
        .find(|e| e.blocking.is_some() && e.blocking != Some(BlockReason::EventSynchronize))
    {
        let why = match e.blocking {
            Some(BlockReason::StreamSynchronize | BlockReason::DeviceSynchronize) => {
                "a synchronize waits for everything queued, the step just launched included, where the CPU needs only the older slot's copy: wait for that slot's event".to_string()
            }
            reason => format!(
                "{}; between two launches the only wait is the one for the older slot's event",
                reason.map(|b| b.explain()).unwrap_or_default()
            ),
        };
        return fail(format!("{after}, {}: {why}", describe(e)), e);
    }
    let waits: Vec<&TraceEntry> = window
        .iter()
        .filter(|e| e.op == OpKind::EventSynchronize)
        .collect();
    let reads = window.iter().filter(|e| e.op == OpKind::HostRead).count();
    if let Some(extra) = waits.get(reads) {
        return fail(
            format!(
                "{after}, {} event wait(s) for {reads} read(s) of a slot, the one too many {}: each `read` waits once, for the event of the slot it reads, and `queue` never waits",
                waits.len(),
                describe(extra)
            ),
            extra,
        );
    }
    let lp = polling_loops(window.iter()).into_iter().next()?;
    fail(
        format!(
            "{after}, `{}` called {} times from one line: a CPU that polls until a copy is done waits for the GPU as surely as `Event::synchronize`, and burns a core doing it; wait once for the slot's event",
            lp.first.name, lp.times
        ),
        lp.first,
    )
}
