//! Time: submitting a step never waits for the GPU (the gate), and a
//! steady-state step costs about max(GPU, CPU), not their sum.

use super::support::{CPU_STEP, Steps, describe, mixed_batch, ms, setup, steady_batch};
use gpu::{BlockReason, Device, OpKind, Stream};
use judge_harness::gaps::longest_gap;
use judge_harness::{Ctx, Failure, median};
use overlap_sampler::Sampler;
use std::time::Duration;

/// The gate: a spin this long queued ahead of the step.
const GATE: Duration = Duration::from_millis(40);

pub(super) fn submit_returns_before_the_gate(ctx: &Ctx) -> Result<(), Failure> {
    let (device, stream, decoder) = setup(ctx)?;
    let batch = mixed_batch();
    let mut sampler = Sampler::new(&stream, &decoder, &batch)?;
    sampler.submit()?;
    sampler.process()?;
    stream.synchronize()?;
    stream.spin(GATE)?;
    let mark = device.trace_mark();
    let start = device.now();
    sampler.submit()?;
    let took = device.now() - start;
    sampler.process()?;
    if took < GATE / 2 {
        return Ok(());
    }
    let trace = device.trace();
    let calls = trace.since(mark);
    let culprit = calls
        .iter()
        .filter(|e| e.blocking.is_some())
        .max_by_key(|e| e.cpu_ns());
    let from = start.as_nanos() as u64;
    let gap = longest_gap(calls, from, from + took.as_nanos() as u64);
    if let Some(gap) = gap.filter(|g| culprit.is_none_or(|e| g.ns > e.cpu_ns())) {
        let failure = Failure::new(
            format!(
                "`submit` to return at once while a {} spin runs ahead of it (under {})",
                ms(GATE.as_nanos() as f64),
                ms(GATE.as_nanos() as f64 / 2.0)
            ),
            format!(
                "`submit` took {}: {}",
                ms(took.as_nanos() as f64),
                gap.describe()
            ),
        );
        return Err(match gap.before.or(gap.after) {
            Some(e) => failure.at(e.site),
            None => failure,
        });
    }
    let mut failure = Failure::new(
        format!(
            "`submit` to return at once while a {} spin runs ahead of it (under {})",
            ms(GATE.as_nanos() as f64),
            ms(GATE.as_nanos() as f64 / 2.0)
        ),
        format!(
            "`submit` took {}: it waited for the GPU",
            ms(took.as_nanos() as f64)
        ),
    );
    if let Some(e) = culprit {
        let pageable = if e.blocking == Some(BlockReason::PageableDeviceToHost) {
            " (a pageable copy: copy into pinned memory and wait for an event later)"
        } else {
            ""
        };
        failure = failure
            .at(e.site)
            .detail(format!("the call that waited: {}{pageable}", describe(e)));
    }
    Err(failure)
}

/// GPU time of one `decode_step` of `n` rows, timed with events (median of 5
/// after a warm-up).
fn gpu_step_ns(device: &Device, stream: &Stream, n: usize) -> Result<f64, Failure> {
    let decoder = super::support::decoder(stream)?;
    let (a, b) = (stream.alloc_zeros::<i32>(n)?, stream.alloc_zeros::<i32>(n)?);
    stream.decode_step(&decoder, &a, &b)?;
    let mut times = Vec::new();
    for _ in 0..5 {
        let (start, end) = (device.new_event()?, device.new_event()?);
        start.record(stream)?;
        stream.decode_step(&decoder, &a, &b)?;
        end.record(stream)?;
        times.push(f64::from(start.elapsed_ms(&end)?) * 1e6);
    }
    Ok(median(&times))
}

/// CPU time of `host_work(CPU_STEP)` on the device's clock (median of 3).
fn cpu_step_ns(device: &Device) -> f64 {
    let times = (0..3)
        .map(|_| {
            let start = device.now();
            device.host_work(CPU_STEP);
            (device.now() - start).as_nanos() as f64
        })
        .collect::<Vec<_>>();
    median(&times)
}

pub(super) fn overlap_efficiency(ctx: &Ctx) -> Result<(), Failure> {
    let (device, stream, decoder) = setup(ctx)?;
    let rows = 8;
    let gpu = gpu_step_ns(&device, &stream, rows)?;
    let cpu = cpu_step_ns(&device);
    stream.synchronize()?;
    device.clear_trace();
    overlap_sampler::generate(&stream, &decoder, &steady_batch(rows, 16), CPU_STEP)?;
    let trace = device.trace();
    let steps = Steps::of(&trace.entries);
    let steady = steps.steady();
    let step_ns: Vec<f64> = steady
        .windows(2)
        .map(|w| (w[1][0].cpu_start_ns - w[0][0].cpu_start_ns) as f64)
        .collect();
    if step_ns.is_empty() {
        return Err(Failure::new(
            "one `decode_step` launch per step (16 tokens: 16 launches or 17)",
            format!("{} launches", steps.windows.len() + 1),
        ));
    }
    let step = median(&step_ns);
    let bound = gpu.max(cpu);
    let efficiency = bound / step;
    if efficiency >= 0.9 {
        return Ok(());
    }
    let (actual, site) = diagnose(steady, gpu);
    let mut failure = Failure::new(
        format!(
            "a steady-state step to take about max(GPU {}, CPU {}) = {} (efficiency max/step at least 0.90)",
            ms(gpu),
            ms(cpu),
            ms(bound)
        ),
        format!(
            "a step took {} (efficiency {efficiency:.2}; GPU + CPU would give {:.2}): {actual}",
            ms(step),
            bound / (gpu + cpu)
        ),
    );
    if let Some(site) = site {
        failure = failure.at(site);
    }
    Err(failure)
}

/// Why the steps did not overlap, and where.
fn diagnose(steady: &[&[gpu::TraceEntry]], gpu: f64) -> (String, Option<gpu::CallSite>) {
    let all = steady.iter().flat_map(|w| w.iter());
    if let Some(e) = all
        .clone()
        .find(|e| e.blocking == Some(BlockReason::PageableDeviceToHost))
    {
        return (
            format!(
                "each step waits in a pageable copy: {}; it returns only once the GPU has finished the step, so the CPU's work cannot overlap it",
                describe(e)
            ),
            Some(e.site),
        );
    }
    if let Some(e) = all
        .clone()
        .find(|e| e.blocking.is_some() && e.blocking != Some(BlockReason::EventSynchronize))
    {
        return (format!("each step waits in {}", describe(e)), Some(e.site));
    }
    let waits: Vec<&gpu::TraceEntry> = all.filter(|e| e.op == OpKind::EventSynchronize).collect();
    let blocked = median(&waits.iter().map(|e| e.cpu_ns() as f64).collect::<Vec<_>>());
    match waits.first() {
        Some(e) if blocked >= 0.8 * gpu => (
            format!(
                "the event wait blocks for {} per step, a whole step: it waits for the step just submitted, so the GPU has nothing queued while the CPU works (submit step N+1 before processing step N, and wait on step N's event, not the newest one)",
                ms(blocked)
            ),
            Some(e.site),
        ),
        _ => (
            "the GPU waits for the CPU between steps: submit step N+1 before processing step N's results".into(),
            None,
        ),
    }
}
