//! The workload every check runs, and what it must produce.
//!
//! A batch of [`BATCH`] requests runs [`STEPS`] steps. The input tokens are
//! chosen with the decoder's own reference step so that requests finish
//! (predict `eos`) one after another, the highest-numbered first, and the
//! lowest eighth never: a loop that trims the batch to the last unfinished
//! request changes its launch shape almost every step. The expected outputs
//! and log lines are computed on the CPU from the decoder's reference step.

use gpu::{Decoder, DecoderConfig, Stream};
use judge_harness::SplitMix;
use std::time::Duration;
use sync_elimination::{Config, LogLine};

/// Requests in the batch.
pub(crate) const BATCH: usize = 128;
/// Steps per log line (`K`).
pub(crate) const LOG_EVERY: usize = 8;
/// Steps of a full run: six windows.
pub(crate) const STEPS: usize = 48;
/// The first step of the steady state: the first window is warm-up.
pub(crate) const STEADY_FROM: usize = LOG_EVERY;
/// GPU time of one decoder step.
pub(crate) const STEP_TIME: Duration = Duration::from_millis(2);
/// The scheduler's CPU time per step: a quarter of the GPU's.
pub(crate) const HOST_WORK: Duration = Duration::from_micros(500);
/// Tokens in the vocabulary.
pub(crate) const VOCAB: usize = 256;
/// Width of an embedding.
pub(crate) const HIDDEN: usize = 32;

/// The decoder the checks use.
pub(crate) fn decoder_config() -> DecoderConfig {
    DecoderConfig {
        vocab: VOCAB,
        hidden: HIDDEN,
        seed: 104,
        step_time: STEP_TIME,
    }
}

/// The inputs of a run and what it must produce.
#[derive(Clone, Debug)]
pub(crate) struct Workload {
    /// `inputs[t]`: step `t`'s input token of every request.
    pub(crate) inputs: Vec<Vec<i32>>,
    /// The end-of-sequence token.
    pub(crate) eos: i32,
    /// Each request's expected output.
    pub(crate) outputs: Vec<Vec<i32>>,
    /// The expected log lines.
    pub(crate) logs: Vec<LogLine>,
}

impl Workload {
    /// The server's configuration for this workload.
    pub(crate) fn config(&self) -> Config {
        Config {
            batch: BATCH,
            max_steps: STEPS,
            log_every: LOG_EVERY,
            eos: self.eos,
            host_work: HOST_WORK,
        }
    }
}

/// The decoder, its weights uploaded on `stream` and the upload waited for.
pub(crate) fn decoder(stream: &Stream) -> gpu::Result<Decoder> {
    let decoder = Decoder::new(stream, decoder_config())?;
    stream.synchronize()?;
    Ok(decoder)
}

/// The course's seed of the workload's inputs (grading mixes its own in:
/// `Ctx::seed`).
pub(crate) const SEED: u64 = 0x104;

/// The workload for `decoder`, its inputs drawn with `seed`.
pub(crate) fn workload(decoder: &Decoder, seed: u64) -> Workload {
    let every: Vec<i32> = (0..VOCAB as i32).collect();
    let next = decoder.reference_step(&every);
    let eos = most_frequent(&next);
    let (ends, goes_on): (Vec<i32>, Vec<i32>) =
        every.iter().partition(|&&v| next[v as usize] == eos);
    assert!(!goes_on.is_empty(), "some token must not predict `eos`");
    let mut rng = SplitMix::new(seed);
    let inputs: Vec<Vec<i32>> = (0..STEPS)
        .map(|t| {
            (0..BATCH)
                .map(|r| match finish_step(r) {
                    Some(f) if f == t => pick(&mut rng, &ends),
                    Some(f) if f < t => pick(&mut rng, &every),
                    _ => pick(&mut rng, &goes_on),
                })
                .collect()
        })
        .collect();
    let (outputs, logs) = expected(decoder, &inputs, eos);
    Workload {
        inputs,
        eos,
        outputs,
        logs,
    }
}

/// The step at which request `r` predicts `eos`: the highest requests first,
/// about one request a step, and the lowest eighth never.
fn finish_step(r: usize) -> Option<usize> {
    let never = BATCH / 8;
    (r >= never).then(|| 1 + (BATCH - 1 - r) * (STEPS - 6) / (BATCH - never))
}

/// What the loop must produce for `inputs`: outputs and log lines.
pub(crate) fn expected(
    decoder: &Decoder,
    inputs: &[Vec<i32>],
    eos: i32,
) -> (Vec<Vec<i32>>, Vec<LogLine>) {
    let mut outputs = vec![Vec::new(); BATCH];
    let mut done = [false; BATCH];
    let mut logs = Vec::new();
    let mut tokens = 0;
    for (t, step_inputs) in inputs.iter().enumerate() {
        let predicted = decoder.reference_step(step_inputs);
        for r in 0..BATCH {
            if done[r] {
                continue;
            }
            outputs[r].push(predicted[r]);
            tokens += 1;
            done[r] = predicted[r] == eos;
        }
        if (t + 1).is_multiple_of(LOG_EVERY) {
            let finished = done.iter().filter(|&&d| d).count() as u32;
            logs.push(LogLine {
                step: t,
                tokens,
                finished,
            });
            tokens = 0;
        }
    }
    (outputs, logs)
}

/// The value that occurs most often (the lowest among equals).
fn most_frequent(values: &[i32]) -> i32 {
    let mut counts = std::collections::BTreeMap::new();
    for &v in values {
        *counts.entry(v).or_insert(0usize) += 1;
    }
    let best = counts.values().copied().max().unwrap_or(0);
    counts
        .into_iter()
        .find(|&(_, c)| c == best)
        .map_or(0, |(v, _)| v)
}

/// A value of `from` drawn by `rng`.
fn pick(rng: &mut SplitMix, from: &[i32]) -> i32 {
    from[rng.below(from.len() as u64) as usize]
}
