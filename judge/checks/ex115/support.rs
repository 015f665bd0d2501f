//! What the checks share: the decoder (exercise 102's), the prompts, an
//! independent reference, the learner's `generate` (or a test's stand-in),
//! and the trace read as steps, copies, waits and reads.

use gpu::{BlockReason, Decoder, DecoderConfig, Device, OpKind, Stream, TraceEntry};
use judge_harness::{Ctx, Failure};
use std::time::Duration;

/// GPU time of one decode step (the decoder's spin pad), as in exercise 102.
pub(super) const GPU_STEP: Duration = Duration::from_millis(2);
/// The CPU's work on one step's tokens in the overlap check, as in 102.
pub(super) const HOST_WORK: Duration = Duration::from_micros(1500);
/// Steps of the main run.
pub(super) const STEPS: usize = 12;
/// The prompts of the main run: exercise 102's, seven requests.
pub(super) const PROMPTS: [i32; 7] = [396, 104, 68, 17, 34, 2, 255];

/// A decode loop with the exercise's signature: the learner's, or in the
/// suite's own tests a known-wrong one.
pub(super) type Generate =
    fn(&Stream, &Decoder, &[i32], usize, Duration) -> gpu::Result<Vec<Vec<i32>>>;

/// The loop the checks run: the learner's `generate`, unless a test of the
/// suite put another in its place.
pub(super) fn chosen() -> Generate {
    #[cfg(test)]
    if let Some(other) = super::tests::replacement() {
        return other;
    }
    token_slots::generate
}

/// The decoder every check uses: 512 tokens, width 64, seed 102.
fn decoder(stream: &Stream) -> Result<Decoder, Failure> {
    let config = DecoderConfig {
        vocab: 512,
        hidden: 64,
        seed: 102,
        step_time: GPU_STEP,
    };
    Ok(Decoder::new(stream, config)?)
}

/// A stream and the decoder on `device`, warmed up by one step (a real GPU
/// may load a kernel at its first launch), with the setup work synchronized
/// and forgotten by the trace.
pub(super) fn setup_on(device: &Device) -> Result<(Stream, Decoder), Failure> {
    let stream = device.new_stream()?;
    let decoder = decoder(&stream)?;
    {
        let (input, output) = (stream.alloc_zeros::<i32>(1)?, stream.alloc_zeros::<i32>(1)?);
        stream.decode_step(&decoder, &input, &output)?;
    }
    stream.synchronize()?;
    device.clear_trace();
    Ok((stream, decoder))
}

/// [`setup_on`] a device of the judge's backend.
pub(super) fn setup(ctx: &Ctx) -> Result<(Device, Stream, Decoder), Failure> {
    let device = ctx.device()?;
    let (stream, decoder) = setup_on(&device)?;
    Ok((device, stream, decoder))
}

/// The expected tokens, one prompt at a time on the CPU twin of the kernel.
pub(super) fn reference(decoder: &Decoder, prompts: &[i32], steps: usize) -> Vec<Vec<i32>> {
    prompts
        .iter()
        .map(|&prompt| {
            let mut token = prompt;
            (0..steps)
                .map(|_| {
                    token = decoder.reference_step(&[token])[0];
                    token
                })
                .collect()
        })
        .collect()
}

/// The positions of the `decode_step` launches in `entries`.
pub(super) fn launches(entries: &[TraceEntry]) -> Vec<usize> {
    positions(entries, |e| {
        e.op == OpKind::Launch && e.name == "decode_step"
    })
}

/// The positions of the copies into pinned memory (a slot's copy).
pub(super) fn pinned_copies(entries: &[TraceEntry]) -> Vec<usize> {
    positions(entries, |e| {
        e.op == OpKind::CopyDeviceToHost && e.blocking.is_none()
    })
}

/// The positions of the CPU's reads of pinned memory (a slot's read).
pub(super) fn pinned_reads(entries: &[TraceEntry]) -> Vec<usize> {
    positions(entries, |e| e.op == OpKind::HostRead)
}

/// The positions of the entries `keep` keeps.
fn positions(entries: &[TraceEntry], keep: impl Fn(&TraceEntry) -> bool) -> Vec<usize> {
    entries
        .iter()
        .enumerate()
        .filter(|(_, e)| keep(e))
        .map(|(i, _)| i)
        .collect()
}

/// A call after which the CPU knows a copy queued before it is done.
pub(super) fn waits(e: &TraceEntry) -> bool {
    matches!(
        e.blocking,
        Some(
            BlockReason::EventSynchronize
                | BlockReason::StreamSynchronize
                | BlockReason::DeviceSynchronize
                | BlockReason::PageableDeviceToHost
        )
    )
}

/// Milliseconds, for messages.
pub(super) fn ms(ns: f64) -> String {
    format!("{:.2} ms", ns / 1e6)
}

/// One trace entry for a person: what, where, how long the CPU spent in it.
pub(super) fn describe(e: &TraceEntry) -> String {
    format!(
        "`{}` at {}: the CPU spent {} in it",
        e.name,
        e.site,
        ms(e.cpu_ns() as f64)
    )
}
