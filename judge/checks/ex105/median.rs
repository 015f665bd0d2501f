//! The median against the GPU time the judge knows, and the throughput at
//! the median.

use super::workload::{COLD, HOST, PLAN, RUN, SLOW, WORK, close, measured, measured_as, ms};
use judge_harness::{Ctx, Failure, median};
use time_it::{Matmul, Plan, Timing};

/// Where the rules are.
const SECTION: &str = "see cpu-and-gpu.md#timing-gpu-work";

pub(super) fn the_median_is_the_gpu_time(ctx: &Ctx) -> Result<(), Failure> {
    let measurement = measured(ctx)?;
    let elsewhere = measurement.events_elsewhere();
    let timing = measurement.timing;
    let (reported, truth) = (timing.median_ms, ms(RUN));
    let samples = &timing.samples_ms;
    if close(reported, truth) {
        return the_middle_sample(ctx, reported, samples);
    }
    let mean = samples.iter().sum::<f64>() / samples.len().max(1) as f64;
    let spread = samples.iter().copied().fold(0.0, f64::max)
        - samples.iter().copied().fold(f64::INFINITY, f64::min);
    let why = if samples.len() > 1 && close(reported, mean) && spread > reported * 0.01 {
        let cold = samples.iter().any(|&s| close(s, ms(COLD)));
        let by = match cold {
            true => format!(
                "the first call ({:.1} ms, a cold start, was timed)",
                ms(COLD)
            ),
            false => format!("the slow run ({:.1} ms)", ms(SLOW)),
        };
        format!(
            "{reported:.3} ms is the mean of your samples, not their median: the mean is dragged by {by}; the median is the middle sample once sorted"
        )
    } else if let Some(other) = elsewhere {
        format!(
            "{reported:.3} ms is about the CPU time of a run: the events were recorded on stream {other}, which has no work, so they time the submission, not the run (the check of the samples says more)"
        )
    } else if (reported - ms(HOST)).abs() <= ms(HOST) * 0.25 {
        format!(
            "a CPU clock measured the submission: {reported:.3} ms is about the CPU time of a run (its launch and its {:.1} ms of CPU work), not the GPU's time",
            ms(HOST)
        )
    } else if close(median(samples), truth) {
        format!(
            "your samples' median is {:.3} ms, but `median_ms` says {reported:.3} ms",
            median(samples)
        )
    } else {
        format!(
            "every run but one took the GPU {truth:.3} ms; the samples say otherwise (the check of the samples names why)"
        )
    };
    Err(Failure::new(
        format!("a median within 2% of the GPU time of a run, {truth:.3} ms"),
        format!("{reported:.3} ms"),
    )
    .detail(format!("{why}; {SECTION}")))
}

/// Whether, measured again with five timed runs (whose samples, in the
/// order they run, are already sorted by whole milliseconds), the median
/// is again not the middle sample: an index off by one, not a sort that
/// orders the samples by something else than their value.
fn off_by_one_again(ctx: &Ctx) -> bool {
    let plan = Plan {
        warmup: PLAN.warmup,
        reps: 5,
    };
    measured_as(ctx, plan, WORK).map_or(true, |again| {
        again.timing.median_ms != median(&again.timing.samples_ms)
    })
}

/// The mean of `samples` without the smallest and the largest.
fn trimmed_mean(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0..=2 => mean(&sorted),
        n => mean(&sorted[1..n - 1]),
    }
}

/// The mean of `samples` (0 when there is none).
fn mean(samples: &[f64]) -> f64 {
    samples.iter().sum::<f64>() / samples.len().max(1) as f64
}

/// Passes when `reported` is the middle of `samples` once sorted, as the
/// statement defines the median: a sample near the GPU time that is not the
/// middle one (the second smallest, say) passes the 2% test by luck of a
/// workload whose runs nearly all take the same time.
fn the_middle_sample(ctx: &Ctx, reported: f64, samples: &[f64]) -> Result<(), Failure> {
    let middle = median(samples);
    if reported == middle {
        return Ok(());
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = sorted.iter().position(|&s| s == reported);
    let middle_index = sorted.len() / 2;
    let which = match rank {
        Some(i) if i.abs_diff(middle_index) == 1 && !off_by_one_again(ctx) => format!(
            "it is sample {} of {} once sorted, next to the middle one ({}), and with five timed runs your median is the middle one: your sort does not order the samples by value (a sort by whole milliseconds, `sort_by_key(|&ms| ms as u64)`, keeps samples of the same millisecond in the order they ran); sort the values themselves (`sort_by(f64::total_cmp)`)",
            i + 1,
            sorted.len(),
            middle_index + 1
        ),
        Some(i) if i.abs_diff(middle_index) == 1 => format!(
            "it is sample {} of {} once sorted, not the middle one ({}): an index one off the middle, `len / 2` (a 1-based middle position used as a 0-based index, say)",
            i + 1,
            sorted.len(),
            middle_index + 1
        ),
        Some(i) => format!(
            "it is sample {} of {} once sorted, not the middle one ({})",
            i + 1,
            sorted.len(),
            sorted.len() / 2 + 1
        ),
        None if close(reported, trimmed_mean(samples)) => "it is none of your samples but their mean without the fastest and the slowest: a trimmed mean is not the median, which is one of the samples, the middle one once sorted".into(),
        None => "it is none of your samples".into(),
    };
    Err(Failure::new(
        format!("`median_ms` to be the middle of your samples once sorted, {middle:.4} ms"),
        format!("{reported:.4} ms"),
    )
    .detail(format!(
        "{which}: sort the samples and take the one at index len / 2; {SECTION}"
    )))
}

pub(super) fn throughput_is_the_work_over_the_median(ctx: &Ctx) -> Result<(), Failure> {
    throughput_of(measured(ctx)?.timing, WORK)?;
    // A product of matrices that are not square: a formula for square ones
    // (2·n³) is right only when m = n = k.
    throughput_of(measured_as(ctx, PLAN, OBLONG)?.timing, OBLONG)
}

/// A matmul of an `m × k` and a `k × n` matrix, no two sizes equal and no
/// size's cube equal to m·n·k (4096 · 1024 · 256 is 1024³, which would let a
/// square formula pass).
const OBLONG: Matmul = Matmul {
    m: 4096,
    n: 2048,
    k: 512,
};

/// Passes when `timing`'s throughput is `work`'s operations over its median.
fn throughput_of(timing: Timing, work: Matmul) -> Result<(), Failure> {
    let operations = 2.0 * (work.m * work.n * work.k) as f64;
    let seconds = timing.median_ms / 1e3;
    let expected = operations / seconds;
    if seconds > 0.0 && close(timing.flops_per_s, expected) {
        return Ok(());
    }
    let ratio = timing.flops_per_s / expected;
    let near = |r: f64| (ratio / r - 1.0).abs() <= 0.02;
    let dot = work.k as f64;
    let why = if near(1.0 / dot) {
        format!(
            "2·m·n operations, one multiply and one add per element of the product: each of its m·n elements is a dot product of k = {} terms, each a multiply and an add, so the count is 2·m·n·k",
            work.k
        )
    } else if near(0.5) {
        "m·n·k operations: each term of a dot product is a multiply and an add, two floating-point operations, so a matmul is 2·m·n·k".to_string()
    } else if near(1e-3) {
        "operations per millisecond: `median_ms` is in milliseconds, a rate is per second".into()
    } else if near(0.5e-3) {
        "m·n·k operations per millisecond: a matmul is 2·m·n·k floating-point operations (a multiply and an add per term), and a rate is per second, while `median_ms` is in milliseconds".into()
    } else if near(1e-6) || near(0.5e-6) {
        "the median multiplied by 1000 to make seconds: a time in milliseconds is divided by 1000 to make seconds".into()
    } else if close(
        timing.flops_per_s,
        operations / (mean(&timing.samples_ms) / 1e3),
    ) {
        "the rate at the mean of your samples, not at the median: one slow run drags the mean, so the throughput is the work over the median".into()
    } else if close(
        timing.flops_per_s,
        operations / (timing.samples_ms.iter().sum::<f64>() / 1e3),
    ) {
        "the work of one run over the time of all the runs: the throughput is one run's work over one run's (median) time".into()
    } else if let Some(cube) = square_formula(timing.flops_per_s, seconds, work) {
        format!(
            "2·{cube}³ operations, the count for two square matrices of side {cube}: this product is {} × {} by {} × {}, and its count is 2·m·n·k, each size in its place",
            work.m, work.k, work.k, work.n
        )
    } else if near(1e3) || near(2e3) {
        "the rate of a time in seconds read as milliseconds: divide the operations by the median in seconds".into()
    } else {
        format!("{ratio:.4} times the right rate: divide 2·m·n·k by the median in seconds")
    };
    Err(Failure::new(
        format!(
            "for m = {}, n = {}, k = {}: 2·m·n·k = {operations:.3e} floating-point operations over your median ({:.3} ms): {expected:.3e} FLOP/s",
            work.m, work.n, work.k, timing.median_ms
        ),
        format!("{:.3e} FLOP/s", timing.flops_per_s),
    )
    .detail(format!("{why}; {SECTION}")))
}

/// The side `s` of the square matmul whose count, 2·s³, `flops_per_s` is
/// over `seconds`, when `s` is one of `work`'s sizes and `work` is not square.
fn square_formula(flops_per_s: f64, seconds: f64, work: Matmul) -> Option<u64> {
    if work.m == work.n && work.n == work.k {
        return None;
    }
    [work.m, work.n, work.k].into_iter().find(|&side| {
        let cube = 2.0 * (side * side * side) as f64 / seconds;
        (flops_per_s / cube - 1.0).abs() <= 0.02
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oblong_product_tells_a_square_formula_apart() {
        let mnk = OBLONG.m * OBLONG.n * OBLONG.k;
        for side in [OBLONG.m, OBLONG.n, OBLONG.k] {
            assert_ne!(side * side * side, mnk, "{side}");
        }
        let seconds = 0.005;
        let square = 2.0 * (OBLONG.n.pow(3)) as f64 / seconds;
        assert_eq!(square_formula(square, seconds, OBLONG), Some(OBLONG.n));
        let right = 2.0 * mnk as f64 / seconds;
        assert_eq!(square_formula(right, seconds, OBLONG), None);
        assert_eq!(
            square_formula(right, seconds, WORK),
            None,
            "a square product"
        );
    }
}
