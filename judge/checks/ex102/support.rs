//! What the checks share: the decoder, the batches, an independent reference,
//! and a reading of the trace as decode steps.

use gpu::{Decoder, DecoderConfig, Device, OpKind, Stream, TraceEntry};
use judge_harness::{Ctx, Failure};
use overlap_sampler::{Batch, Request};
use std::time::Duration;

/// GPU time of one decode step (the decoder's spin pad).
pub(super) const GPU_STEP: Duration = Duration::from_millis(2);
/// CPU work per step (`host_work`).
pub(super) const CPU_STEP: Duration = Duration::from_micros(1500);
/// The end-of-sequence token of [`mixed_batch`]: on a cycle of the decoder's
/// token map, so many prompts reach it, after different numbers of steps.
pub(super) const EOS: i32 = 285;

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

/// A device, a stream and the decoder, with the setup work synchronized and
/// forgotten by the trace.
pub(super) fn setup(ctx: &Ctx) -> Result<(Device, Stream, Decoder), Failure> {
    let device = ctx.device()?;
    let stream = device.new_stream()?;
    let decoder = decoder(&stream)?;
    stream.synchronize()?;
    device.clear_trace();
    Ok((device, stream, decoder))
}

pub(super) fn request(prompt: i32, max_new_tokens: usize) -> Request {
    Request {
        prompt,
        max_new_tokens,
    }
}

/// Requests that finish at different steps: on the first token (396 decodes
/// to EOS at once), after 2, 3, 5 and 9 tokens, at `max_new_tokens` = 4
/// before EOS could come (34 would reach it at 7), and at EOS exactly on
/// `max_new_tokens` (255 reaches it at 4); and the edges of
/// `max_new_tokens`: 0 (finished before the first step: no token) and 1.
pub(super) fn mixed_batch() -> Batch {
    Batch {
        requests: vec![
            request(396, 16),
            request(104, 16),
            request(68, 16),
            request(17, 16),
            request(34, 4),
            request(2, 16),
            request(255, 4),
            request(104, 0),
            request(68, 1),
        ],
        eos: EOS,
    }
}

/// `n` requests that never meet their EOS (no token is 512) and all stop
/// at `tokens`: every step is a steady-state step.
pub(super) fn steady_batch(n: usize, tokens: usize) -> Batch {
    Batch {
        requests: (0..n).map(|i| request(7 + 61 * i as i32, tokens)).collect(),
        eos: 512,
    }
}

/// The expected outputs, one request at a time on the CPU twin of the kernel.
pub(super) fn reference(decoder: &Decoder, batch: &Batch) -> Vec<Vec<i32>> {
    batch
        .requests
        .iter()
        .map(|r| {
            let (mut out, mut token) = (Vec::new(), r.prompt);
            while out.len() < r.max_new_tokens {
                token = decoder.reference_step(&[token])[0];
                out.push(token);
                if token == batch.eos {
                    break;
                }
            }
            out
        })
        .collect()
}

/// The decode-step launches of a trace, and what happened between them.
pub(super) struct Steps<'t> {
    /// The entries from each `decode_step` launch up to the next one.
    pub(super) windows: Vec<&'t [TraceEntry]>,
}

impl<'t> Steps<'t> {
    /// Cuts `entries` at every `decode_step` launch.
    pub(super) fn of(entries: &'t [TraceEntry]) -> Self {
        let starts: Vec<usize> = entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.op == OpKind::Launch && e.name == "decode_step")
            .map(|(i, _)| i)
            .collect();
        let windows = starts.windows(2).map(|w| &entries[w[0]..w[1]]).collect();
        Self { windows }
    }

    /// The windows of the steady state: without the first two and the last one.
    pub(super) fn steady(&self) -> &[&'t [TraceEntry]] {
        let n = self.windows.len();
        if n < 5 {
            return &[];
        }
        &self.windows[2..n - 1]
    }
}

/// Milliseconds, for messages.
pub(super) fn ms(ns: f64) -> String {
    format!("{:.2} ms", ns / 1e6)
}

/// One trace entry for a person: what, where, how long the CPU spent in it.
pub(super) fn describe(e: &TraceEntry) -> String {
    let why = e.blocking.map(|b| format!(" ({b})")).unwrap_or_default();
    format!(
        "`{}` at {}: the CPU spent {} in it{why}",
        e.name,
        e.site,
        ms(e.cpu_ns() as f64)
    )
}
