//! The measurements of the chapter "Sampling on the GPU and overlap
//! scheduling": the naive decode loop (exercise 102's starter, written out
//! here so that the book's figures do not change when a learner edits the
//! starter) against the overlapped loop (exercise 102's solution).

use gpu::{Decoder, DecoderConfig, Device, DeviceBuffer, OpKind, Result, Stream, Trace};
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

/// Sampling on the CPU against sampling on the GPU, per step.
#[derive(Clone, Debug, PartialEq)]
pub struct WhereToSample {
    /// Bytes of logits per step.
    pub logits_bytes: usize,
    /// Step time, sampling on the CPU, ns.
    pub cpu_step_ns: f64,
    /// Step time, sampling on the GPU, ns.
    pub gpu_step_ns: f64,
    /// Both ways chose the same tokens in every step.
    pub same_tokens: bool,
}

/// Deterministic logits in [-1, 1): `rows × cols` of them.
fn some_logits(rows: usize, cols: usize) -> Vec<f32> {
    (0..rows * cols)
        .map(|i| {
            ((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as f32 / (1u64 << 23) as f32
                - 1.0
        })
        .collect()
}

/// The index of the largest value (the lowest index among equals).
fn argmax(row: &[f32]) -> i32 {
    let mut best = 0;
    for (i, &v) in row.iter().enumerate() {
        if v > row[best] {
            best = i;
        }
    }
    best as i32
}

// ANCHOR: sample_on_cpu
/// Sampling on the CPU: copy the logits into a `Vec` (waits for the forward
/// pass, then moves rows × cols floats), pick each row's token, copy the
/// tokens back for the next step.
fn sample_on_cpu(
    stream: &Stream,
    logits: &DeviceBuffer<f32>,
    cols: usize,
    tokens: &DeviceBuffer<i32>,
) -> Result<Vec<i32>> {
    let host = stream.to_vec(logits)?;
    let next: Vec<i32> = host.chunks(cols).map(argmax).collect();
    stream.copy_from_host(&next, tokens)?;
    Ok(next)
}
// ANCHOR_END: sample_on_cpu

// ANCHOR: sample_on_gpu
/// Sampling on the GPU: an argmax kernel reads the logits where they are;
/// only the tokens travel, into pinned memory, and the CPU reads them after
/// an event.
fn sample_on_gpu(
    stream: &Stream,
    logits: &DeviceBuffer<f32>,
    cols: usize,
    tokens: &DeviceBuffer<i32>,
    host: &gpu::PinnedBuffer<i32>,
) -> Result<Vec<i32>> {
    stream.argmax_rows(logits, tokens.len(), cols, tokens)?;
    stream.copy_to_pinned(tokens, host)?;
    stream.record_event()?.synchronize()?;
    Ok(host.to_vec())
}
// ANCHOR_END: sample_on_gpu

/// `steps` steps of a `forward` of GPU time that writes `rows × cols`
/// logits, sampled on the CPU and then on the GPU; the median step time of each.
pub fn where_to_sample(
    device: &Device,
    rows: usize,
    cols: usize,
    forward: Duration,
    steps: usize,
) -> Result<WhereToSample> {
    let stream = device.new_stream()?;
    let source = stream.alloc_zeros::<f32>(rows * cols)?;
    stream.copy_from_host(&some_logits(rows, cols), &source)?;
    let logits = stream.alloc_zeros::<f32>(rows * cols)?;
    let tokens = stream.alloc_zeros::<i32>(rows)?;
    let pinned = device.alloc_pinned::<i32>(rows)?;
    stream.synchronize()?;
    let (mut on_cpu, mut on_gpu, mut same) = (Vec::new(), Vec::new(), true);
    for _ in 0..steps {
        let t = device.now();
        stream.spin(forward)?; // the forward pass, then its logits
        stream.copy(&source, &logits)?;
        let a = sample_on_cpu(&stream, &logits, cols, &tokens)?;
        on_cpu.push((device.now() - t).as_nanos() as f64);
        let t = device.now();
        stream.spin(forward)?;
        stream.copy(&source, &logits)?;
        let b = sample_on_gpu(&stream, &logits, cols, &tokens, &pinned)?;
        on_gpu.push((device.now() - t).as_nanos() as f64);
        same &= a == b;
    }
    stream.synchronize()?;
    Ok(WhereToSample {
        logits_bytes: rows * cols * 4,
        cpu_step_ns: crate::Summary::of(on_cpu).median,
        gpu_step_ns: crate::Summary::of(on_gpu).median,
        same_tokens: same,
    })
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
    fn sampling_on_the_gpu_skips_the_logits_copy() {
        let device = Device::open(Backend::Virtual).unwrap();
        let w = where_to_sample(&device, 64, 32_000, 2 * MS, 3).unwrap();
        assert!(w.same_tokens);
        // On the CPU, the step adds at least the logits' copy into pageable memory.
        let copy_ns = w.logits_bytes as f64 / gpu::Calibration::default().pageable_d2h_bytes_per_ns;
        assert!(
            w.gpu_step_ns < 2.1e6 && w.cpu_step_ns > 2.0e6 + copy_ns,
            "{w:?}, the copy {copy_ns} ns"
        );
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
