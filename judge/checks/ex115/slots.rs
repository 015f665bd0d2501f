//! Each slot read after its event: the race checker says whether a read of
//! a slot is ordered after the copies into it (none missing its wait, none
//! queued into the slot after the wait); the trace says which step, which
//! slot, and which wait is missing.

use super::support::{PROMPTS, STEPS, chosen, launches, pinned_copies, pinned_reads, setup, waits};
use gpu::{CallSite, OpKind, RaceReport, TraceEntry};
use judge_harness::{Ctx, Failure};
use std::time::Duration;

pub(super) fn each_slot_is_read_after_its_event(ctx: &Ctx) -> Result<(), Failure> {
    let (device, stream, decoder) = setup(ctx)?;
    chosen()(&stream, &decoder, &PROMPTS, STEPS, Duration::ZERO)?;
    stream.synchronize()?;
    let Some(race) = device.take_races().into_iter().next() else {
        return Ok(());
    };
    let (cause, site) = race_cause(&device.trace().entries, &race);
    Err(Failure::new(EXPECTED, cause)
        .at(site)
        .detail(race.to_string()))
}

/// What the check expects, in words.
const EXPECTED: &str = "each step's slot read by the CPU only after a wait for the event recorded after the copy into it, and no later copy into that slot before the read";

/// The cause of `race`, found in the run's trace (`entries`), and the line
/// to show.
pub(super) fn race_cause(entries: &[TraceEntry], race: &RaceReport) -> (String, CallSite) {
    if !race.host {
        return (
            "two operations on the tokens' device memory that nothing orders, such as a copy queued on another stream than the steps': queue each slot's copy on the steps' stream, after the step".into(),
            race.current.site,
        );
    }
    let slots = entries
        .iter()
        .filter(|e| e.op == OpKind::AllocPinned)
        .count();
    if slots == 1 {
        let cause = format!(
            "one pinned slot for every step: the copy of step s + 1's tokens into it (queued at {}) is queued before the CPU reads step s's tokens from it (at {}), and the wait for step s's event does not cover that later copy. Two slots, step s's tokens in slot s % 2, so the copy queued while the CPU reads a slot always goes into the other one",
            race.previous.site, race.current.site
        );
        return (cause, race.current.site);
    }
    let copies = pinned_copies(entries);
    let reads = pinned_reads(entries);
    for (k, (&copy, &read)) in copies.iter().zip(&reads).enumerate() {
        if read > copy && !entries[copy..read].iter().any(waits) {
            let cause = format!(
                "the CPU read slot {} (step {k}'s tokens) at {} with no wait since the copy into it (queued at {}): `copy_to_pinned` returns at once and the tokens land only when the GPU runs the copy, so `read` must synchronize that slot's event, the one recorded after the copy, before it reads the slot",
                k % 2,
                entries[read].site,
                entries[copy].site
            );
            return (cause, entries[read].site);
        }
    }
    if let Some(record) = recorded_before_the_copy(entries) {
        let cause = format!(
            "the event after step 0 was recorded (at {}) before the copy into its slot was queued: it completes when the step is done, not when the tokens have landed in the slot, so a wait for it lets the CPU read the slot too early. Record the slot's event after `copy_to_pinned`",
            record.site
        );
        return (cause, record.site);
    }
    let cause = format!(
        "the CPU read a slot at {} after a wait that does not cover the copy into it (queued at {}): the event it waited for was not the one recorded after that copy (the other slot's, one recorded before the copy, or one never recorded, which completes at once). `read` waits for the event of the slot it reads, slot `read % 2`",
        race.current.site, race.previous.site
    );
    (cause, race.current.site)
}

/// The event record of the first step, when it comes before the step's
/// copy and none follows the copy before the next launch.
fn recorded_before_the_copy(entries: &[TraceEntry]) -> Option<&TraceEntry> {
    let at = launches(entries);
    let start = *at.first()?;
    let end = at.get(1).copied().unwrap_or(entries.len());
    let window = &entries[start..end];
    let copy = window
        .iter()
        .position(|e| e.op == OpKind::CopyDeviceToHost)?;
    let recorded = |e: &&TraceEntry| e.op == OpKind::EventRecord;
    if window[copy..].iter().any(|e| recorded(&e)) {
        return None;
    }
    window[..copy].iter().find(recorded)
}
