//! Timing GPU work: how long the GPU takes for a workload, and at what rate
//! it computes.
//!
//! [`measure`] runs a workload a number of times on a stream and reports one
//! GPU time per timed run, their median and the throughput at the median. A
//! launch only queues work, so the CPU's clock around it measures the
//! submission; the rules of `README.md` (and of the chapter's "Timing GPU
//! work") say how to measure the GPU instead.

use gpu::{Result, Stream};

/// How to measure: runs to throw away first, then runs to time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Untimed runs before the first timed one.
    pub warmup: usize,
    /// Timed runs, one sample each (an odd number, so the median is one of them).
    pub reps: usize,
}

/// The work of one run, to turn a time into a rate: a product of an `m × k`
/// matrix and a `k × n` one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Matmul {
    /// Rows of the product.
    pub m: u64,
    /// Columns of the product.
    pub n: u64,
    /// The length of each dot product.
    pub k: u64,
}

/// What a measurement found.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    /// The GPU time of each timed run in milliseconds, in the order they ran.
    pub samples_ms: Vec<f64>,
    /// The median of `samples_ms`: the middle one once sorted.
    pub median_ms: f64,
    /// Floating-point operations per second at the median time.
    pub flops_per_s: f64,
}

/// Runs `run` (one run of the workload: it queues GPU work on the stream it
/// is given, and may spend CPU time too) `plan.warmup` times untimed, then
/// `plan.reps` times timed, and reports the GPU time of each timed run,
/// their median, and the throughput of `work` at the median.
pub fn measure(
    stream: &Stream,
    plan: Plan,
    work: Matmul,
    run: &mut dyn FnMut(&Stream) -> Result<()>,
) -> Result<Timing> {
    // Warm-up: the first runs pay one-time costs (module loading, the
    // allocator's first segments) that the steady state never pays.
    for _ in 0..plan.warmup {
        run(stream)?;
    }
    // One pair of events per run, on the stream the work runs on. The loop
    // only queues: the CPU runs ahead, and each start event completes when
    // the GPU reaches it, so a pair sees only its own run's GPU time.
    let mut pairs = Vec::with_capacity(plan.reps);
    for _ in 0..plan.reps {
        let start = stream.record_event()?;
        run(stream)?;
        pairs.push((start, stream.record_event()?));
    }
    // One wait, for the last end event; then every `elapsed_ms` returns at
    // once (inside the loop each would have been a hidden sync).
    if let Some((_, last)) = pairs.last() {
        last.synchronize()?;
    }
    let samples_ms = pairs
        .iter()
        .map(|(start, end)| start.elapsed_ms(end).map(f64::from))
        .collect::<Result<Vec<f64>>>()?;
    let median_ms = median(&samples_ms);
    // A multiply and an add per term of each dot product: 2·m·n·k.
    let operations = 2.0 * (work.m * work.n * work.k) as f64;
    Ok(Timing {
        samples_ms,
        median_ms,
        flops_per_s: operations / (median_ms / 1e3),
    })
}

/// The middle sample once sorted (the upper middle of an even count); 0
/// when there is none. A slow run moves a mean, not the median.
fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied().unwrap_or(0.0)
}
