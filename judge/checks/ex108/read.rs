//! After the last step's launch: one copy brings every step's tokens to the
//! host, and the CPU waits once, for that copy (or for the event behind a
//! pinned one).

use super::steps::launch_count;
use super::support::{PROMPTS, STEPS, chosen, describe, launches, setup};
use gpu::{BlockReason, OpKind, TraceEntry};
use judge_harness::{Ctx, Failure};

pub(super) fn the_tokens_are_read_once_at_the_end(ctx: &Ctx) -> Result<(), Failure> {
    let (device, stream, decoder) = setup(ctx)?;
    chosen()(&stream, &decoder, &PROMPTS, STEPS)?;
    after_the_last_step(&device.trace().entries)
}

/// Bytes of every step's tokens: what the one read brings.
const TOKENS_BYTES: u64 = (STEPS * PROMPTS.len() * 4) as u64;

/// Bytes of every step's tokens and the prompts' row before them: a read of
/// the whole history, which brings every step's tokens too.
const HISTORY_BYTES: u64 = TOKENS_BYTES + ROW_BYTES;

/// Bytes of one step's tokens.
const ROW_BYTES: u64 = (PROMPTS.len() * 4) as u64;

/// What the check expects, in words.
fn expected() -> String {
    format!(
        "after the last `decode_step` launch, one copy to the host of every step's tokens ({STEPS} steps × {} prompts × 4 bytes = {TOKENS_BYTES} bytes, or {HISTORY_BYTES} with the prompts' row), and one wait",
        PROMPTS.len()
    )
}

/// The check on a trace of one run of [`STEPS`] steps.
pub(super) fn after_the_last_step(entries: &[TraceEntry]) -> Result<(), Failure> {
    let at = launches(entries);
    if at.len() != STEPS {
        return Err(launch_count(at.len()));
    }
    let after = &entries[at[STEPS - 1] + 1..];
    let copies: Vec<&TraceEntry> = after
        .iter()
        .filter(|e| e.op == OpKind::CopyDeviceToHost)
        .collect();
    let fail = |actual: String, site| Err(Failure::new(expected(), actual).at(site));
    let Some(&copy) = copies.first() else {
        return fail(no_copy(entries), entries[at[STEPS - 1]].site);
    };
    if copies.len() > 1 {
        return fail(
            format!(
                "{} copies to the host after the last launch, the first {}: each brings part of the tokens, and each copy into pageable memory is a wait of its own; one copy of the whole buffer brings them all",
                copies.len(),
                describe(copy)
            ),
            copy.site,
        );
    }
    if copy.bytes != TOKENS_BYTES && copy.bytes != HISTORY_BYTES {
        return fail(size_cause(copy), copy.site);
    }
    let waits: Vec<&TraceEntry> = after.iter().filter(|e| waits_for_results(e)).collect();
    if let [_, _, ..] = waits.as_slice() {
        let extra = waits
            .iter()
            .find(|e| e.op != OpKind::CopyDeviceToHost)
            .unwrap_or(&waits[0]);
        return fail(
            format!(
                "{} waits after the last launch, one of them {}: the copy into a `Vec` waits for the steps by itself (and an event after a pinned copy is the one wait a pinned read needs); one wait is enough",
                waits.len(),
                describe(extra)
            ),
            extra.site,
        );
    }
    Ok(())
}

/// A call that waits for the GPU's results (not a free that happens to wait).
fn waits_for_results(e: &TraceEntry) -> bool {
    matches!(
        e.blocking,
        Some(
            BlockReason::StreamSynchronize
                | BlockReason::EventSynchronize
                | BlockReason::DeviceSynchronize
                | BlockReason::PageableDeviceToHost
        )
    )
}

/// Why no copy came after the last launch.
fn no_copy(entries: &[TraceEntry]) -> String {
    let earlier = entries
        .iter()
        .filter(|e| e.op == OpKind::CopyDeviceToHost)
        .count();
    if earlier > 0 {
        format!(
            "no copy to the host after the last launch, and {earlier} before it: the tokens were read step by step, each read waiting for its step; read them all once, after the last launch"
        )
    } else {
        "no copy to the host at all: the tokens `generate` returns never came from the GPU".into()
    }
}

/// Why the one copy moved the wrong number of bytes.
fn size_cause(copy: &TraceEntry) -> String {
    let what = if copy.bytes == ROW_BYTES {
        "one step's tokens: the other steps' tokens must stay on the device too (a row each), to be read with them".to_string()
    } else {
        format!("{} bytes, which is not every step's tokens", copy.bytes)
    };
    format!(
        "the copy after the last launch ({}) moved {} bytes: {what}",
        describe(copy),
        copy.bytes
    )
}
