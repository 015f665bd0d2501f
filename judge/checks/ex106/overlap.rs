//! The copies overlap the steps: the whole run against the physical limit,
//! max(the copies, the steps) plus the first copy, each measured alone in
//! the same run.

use super::workload::{BATCH_LEN, BATCHES, Bench, MODEL, ms};
use gpu::{OpKind, TraceEntry};
use judge_harness::{Ctx, Failure};

/// How far above the limit a run may be.
const TOLERANCE: f64 = 0.10;

/// GPU time of one batch's copy on the copy stream, alone (after a warm-up copy).
pub(super) fn copy_alone_ms(bench: &Bench) -> Result<f64, Failure> {
    let c = &bench.copy;
    let on_device = c.alloc_zeros::<f32>(BATCH_LEN)?;
    c.copy_from_pinned(&bench.batches[0], &on_device)?;
    let start = c.record_event()?;
    c.copy_from_pinned(&bench.batches[1], &on_device)?;
    let end = c.record_event()?;
    Ok(f64::from(start.elapsed_ms(&end)?))
}

/// GPU time of one model step on the compute stream, alone, on a batch just
/// copied from pinned memory as the run's steps read theirs. (On the H200 a
/// step over a batch the copy engine has just written took 1.58 ms, over a
/// batch zeroed and summed on the GPU before it 1.29 ms: the limit must be
/// that of the steps the run makes.)
pub(super) fn step_alone_ms(bench: &Bench) -> Result<f64, Failure> {
    let c = &bench.compute;
    let (batch, out) = (c.alloc_zeros::<f32>(BATCH_LEN)?, c.alloc_zeros::<f32>(1)?);
    c.copy_from_pinned(&bench.batches[0], &batch)?;
    MODEL.forward(c, &batch, &out)?;
    c.copy_from_pinned(&bench.batches[1], &batch)?;
    let start = c.record_event()?;
    MODEL.forward(c, &batch, &out)?;
    let end = c.record_event()?;
    Ok(f64::from(start.elapsed_ms(&end)?))
}

pub(super) fn copies_overlap_the_steps(ctx: &Ctx) -> Result<(), Failure> {
    let bench = Bench::open(ctx)?;
    let (copy, step) = (copy_alone_ms(&bench)?, step_alone_ms(&bench)?);
    bench.device.synchronize()?;
    let started = bench.device.now();
    bench.run()?;
    let took = ms(bench.device.now() - started);
    ctx.save_timeline(&bench.device);
    let n = BATCHES as f64;
    let limit = (n * copy).max(n * step) + copy.min(step);
    if took <= limit * (1.0 + TOLERANCE) {
        return Ok(());
    }
    let serial = n * (copy + step);
    let why = turns(&bench, took >= serial * 0.9);
    Err(Failure::new(
        format!(
            "{BATCHES} batches in at most 10% more than max({BATCHES} copies, {BATCHES} steps) + the first copy = {limit:.2} ms (a copy {copy:.3} ms and a step {step:.3} ms alone, measured in this run)"
        ),
        format!(
            "{took:.2} ms ({:+.0}%; one after the other would take {serial:.2} ms)",
            (took / limit - 1.0) * 100.0
        ),
    )
    .detail(format!(
        "{why}; see streams-and-events.md#copies-that-overlap-compute"
    )))
}

/// Why the copies and the steps take turns, from the order the run queued
/// them in (`serial`: they hardly overlap at all).
fn turns(bench: &Bench, serial: bool) -> String {
    let trace = bench.device.trace();
    let run: Vec<&TraceEntry> = trace.entries.iter().collect();
    let copies: Vec<&&TraceEntry> = run
        .iter()
        .filter(|e| e.op == OpKind::CopyHostToDevice && e.bytes == (BATCH_LEN * 4) as u64)
        .collect();
    let steps: Vec<&&TraceEntry> = run
        .iter()
        .filter(|e| e.op == OpKind::Launch && e.name == "sum_f32")
        .collect();
    // The run's own copies and steps are the last of each.
    let copies = &copies[copies.len().saturating_sub(BATCHES)..];
    let steps = &steps[steps.len().saturating_sub(BATCHES)..];
    let compute = bench.compute.id();
    if copies.iter().any(|c| c.stream == Some(compute)) {
        return "the batches are copied on the compute stream, in line with the steps: copy them on the copy stream".into();
    }
    let late = (1..copies.len().min(steps.len() + 1)).find(|&i| copies[i].seq > steps[i - 1].seq);
    match (late, serial) {
        (Some(i), _) => format!(
            "batch {i}'s copy (at {}) is queued after step {} (at {}), so it cannot run during that step: queue the next batch's copy before this batch's step",
            copies[i].site,
            i - 1,
            steps[i - 1].site
        ),
        (None, true) => "the copies and the steps take turns: something orders each copy after the step before it, on the GPU or on the CPU".into(),
        (None, false) => "the copies overlap the steps only in part: something still orders a copy after a step, or the CPU falls behind".into(),
    }
}
