//! The measurements of the chapter "Sampling on the GPU and overlap
//! scheduling": the naive decode loop (exercise 102's starter, written out
//! here so that the book's figures do not change when a learner edits the
//! starter) against the overlapped loop (exercise 102's solution).

use gpu::{Decoder, DecoderConfig, Device, OpKind, Result, Stream, Trace};
use overlap_sampler::{Batch, Request};
use std::time::Duration;

// ANCHOR: naive
/// The naive loop: launch a step, copy its tokens into a `Vec` (the CPU
/// waits for the GPU), check EOS on the CPU, do the host work, repeat.
pub fn naive_generate(
    stream: &Stream,
    decoder: &Decoder,
    batch: &Batch,
    host_work: Duration,
) -> Result<Vec<Vec<i32>>> {
    let n = batch.requests.len();
    let tokens = [stream.alloc_zeros::<i32>(n)?, stream.alloc_zeros::<i32>(n)?];
    let prompts: Vec<i32> = batch.requests.iter().map(|r| r.prompt).collect();
    stream.copy_from_host(&prompts, &tokens[0])?;
    let mut outputs = vec![Vec::new(); n];
    let mut finished: Vec<bool> = batch
        .requests
        .iter()
        .map(|r| r.max_new_tokens == 0)
        .collect();
    let mut step = 0;
    while !finished.iter().all(|&f| f) {
        stream.device().host_work(host_work);
        let (input, output) = (&tokens[step % 2], &tokens[(step + 1) % 2]);
        stream.decode_step(decoder, input, output)?;
        let next = stream.to_vec(output)?; // `.tolist()`: waits for the step
        for (i, r) in batch.requests.iter().enumerate() {
            if !finished[i] {
                outputs[i].push(next[i]);
                finished[i] = next[i] == batch.eos || outputs[i].len() >= r.max_new_tokens;
            }
        }
        step += 1;
    }
    Ok(outputs)
}
// ANCHOR_END: naive

/// Which loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loop {
    /// [`naive_generate`].
    Naive,
    /// [`overlap_sampler::generate`].
    Overlapped,
}

/// The decoder of exercise 102's checks, with `gpu_step` of GPU time per step.
pub fn decoder(stream: &Stream, gpu_step: Duration) -> Result<Decoder> {
    let config = DecoderConfig {
        vocab: 512,
        hidden: 64,
        seed: 102,
        step_time: gpu_step,
    };
    Decoder::new(stream, config)
}

/// `rows` requests of `tokens` tokens each that never meet their EOS.
pub fn steady_batch(rows: usize, tokens: usize) -> Batch {
    Batch {
        requests: (0..rows)
            .map(|i| Request {
                prompt: 7 + 61 * i as i32,
                max_new_tokens: tokens,
            })
            .collect(),
        eos: 512,
    }
}

/// Runs `which` loop over [`steady_batch`] on a fresh stream of `device`,
/// with the trace cleared after the decoder's setup; returns the trace.
pub fn run(
    device: &Device,
    which: Loop,
    gpu_step: Duration,
    cpu_step: Duration,
    tokens: usize,
) -> Result<Trace> {
    let stream = device.new_stream()?;
    let decoder = decoder(&stream, gpu_step)?;
    stream.synchronize()?;
    device.clear_trace();
    let batch = steady_batch(8, tokens);
    match which {
        Loop::Naive => naive_generate(&stream, &decoder, &batch, cpu_step)?,
        Loop::Overlapped => overlap_sampler::generate(&stream, &decoder, &batch, cpu_step)?,
    };
    device.synchronize()?;
    Ok(device.trace())
}

/// CPU times at which each `decode_step` was launched, ns.
pub fn launches(trace: &Trace) -> Vec<u64> {
    trace
        .entries
        .iter()
        .filter(|e| e.op == OpKind::Launch && e.name == "decode_step")
        .map(|e| e.cpu_start_ns)
        .collect()
}

/// The median time between launches in the steady state (without the first
/// two steps and the last), ns.
pub fn steady_step_ns(trace: &Trace) -> f64 {
    let l = launches(trace);
    let mut gaps: Vec<f64> = l.windows(2).skip(2).map(|w| (w[1] - w[0]) as f64).collect();
    gaps.pop();
    crate::Summary::of(gaps).median
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu::Backend;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn the_naive_loop_pays_the_sum_and_the_overlapped_one_the_max() {
        let device = Device::open(Backend::Virtual).unwrap();
        let cpu = Duration::from_micros(1500);
        let naive = steady_step_ns(&run(&device, Loop::Naive, 2 * MS, cpu, 12).unwrap());
        let over = steady_step_ns(&run(&device, Loop::Overlapped, 2 * MS, cpu, 12).unwrap());
        assert!((3.5e6..3.6e6).contains(&naive), "{naive}");
        assert!((2.0e6..2.05e6).contains(&over), "{over}");
    }

    #[test]
    fn both_loops_give_the_same_tokens() {
        let device = Device::open(Backend::Virtual).unwrap();
        let stream = device.new_stream().unwrap();
        let decoder = decoder(&stream, MS).unwrap();
        let batch = Batch {
            requests: vec![
                Request {
                    prompt: 396,
                    max_new_tokens: 8,
                },
                Request {
                    prompt: 17,
                    max_new_tokens: 8,
                },
                Request {
                    prompt: 34,
                    max_new_tokens: 4,
                },
            ],
            eos: 285,
        };
        let naive = naive_generate(&stream, &decoder, &batch, MS).unwrap();
        let over = overlap_sampler::generate(&stream, &decoder, &batch, MS).unwrap();
        assert_eq!(naive, over);
        assert_eq!(naive[0], [285]);
    }
}
