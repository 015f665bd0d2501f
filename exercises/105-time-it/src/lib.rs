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
    // TODO: this is how GPU code is often timed, and it is wrong in several
    // ways (the README lists the rules, `judge run 105` names each mistake):
    // no warm-up, a CPU clock around calls that only queue work, a mean,
    // and a throughput that miscounts the work and the unit of time.
    let _ = plan.warmup;
    let device = stream.device();
    let mut samples_ms = Vec::new();
    for _ in 0..plan.reps {
        let started = device.now();
        run(stream)?;
        samples_ms.push((device.now() - started).as_secs_f64() * 1e3);
    }
    let mean_ms = samples_ms.iter().sum::<f64>() / samples_ms.len() as f64;
    let operations = (work.m * work.n * work.k) as f64;
    Ok(Timing {
        samples_ms,
        median_ms: mean_ms,
        flops_per_s: operations / mean_ms,
    })
}
