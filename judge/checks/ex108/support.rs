//! What the checks share: the decoder (exercise 102's), the prompts, an
//! independent reference, the learner's `generate` (or a test's stand-in),
//! and words for trace entries.

use gpu::{Decoder, DecoderConfig, Device, OpKind, Stream, TraceEntry};
use judge_harness::{Ctx, Failure};
use std::time::Duration;

/// GPU time of one decode step (the decoder's spin pad), as in exercise 102.
pub(super) const GPU_STEP: Duration = Duration::from_millis(2);
/// Steps of the main run: 24 ms of GPU time, well under the gate.
pub(super) const STEPS: usize = 12;
/// The prompts of the main run: exercise 102's, seven requests.
pub(super) const PROMPTS: [i32; 7] = [396, 104, 68, 17, 34, 2, 255];

/// A decode loop with the exercise's signature: the learner's, or in the
/// suite's own tests a known-wrong one.
pub(super) type Generate = fn(&Stream, &Decoder, &[i32], usize) -> gpu::Result<Vec<Vec<i32>>>;

/// The loop the checks run: the learner's `generate`, unless a test of the
/// suite put another in its place.
pub(super) fn chosen() -> Generate {
    #[cfg(test)]
    if let Some(other) = super::tests::replacement() {
        return other;
    }
    gpu_sampler::generate
}

/// The decoder every check uses: 512 tokens, width 64, seed 102.
pub(super) fn decoder(stream: &Stream) -> Result<Decoder, Failure> {
    let config = DecoderConfig {
        vocab: 512,
        hidden: 64,
        seed: 102,
        step_time: GPU_STEP,
    };
    Ok(Decoder::new(stream, config)?)
}

/// A device, a stream and the decoder, warmed up by one step (a real GPU
/// may load a kernel at its first launch), with the setup work synchronized
/// and forgotten by the trace.
pub(super) fn setup(ctx: &Ctx) -> Result<(Device, Stream, Decoder), Failure> {
    let device = ctx.device()?;
    let stream = device.new_stream()?;
    let decoder = decoder(&stream)?;
    warm_up(&stream, &decoder)?;
    stream.synchronize()?;
    device.clear_trace();
    Ok((device, stream, decoder))
}

/// One step of one row, its buffers freed before the trace is cleared.
fn warm_up(stream: &Stream, decoder: &Decoder) -> Result<(), Failure> {
    let (input, output) = (stream.alloc_zeros::<i32>(1)?, stream.alloc_zeros::<i32>(1)?);
    Ok(stream.decode_step(decoder, &input, &output)?)
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
    entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.op == OpKind::Launch && e.name == "decode_step")
        .map(|(i, _)| i)
        .collect()
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
