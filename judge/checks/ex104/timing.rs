//! The gate, the step time against the GPU-bound limit, and the reported
//! step times against the judge's events.

use super::support::Bench;
use super::workload::{BATCH, LOG_EVERY, STEADY_FROM, STEPS};
use gpu::Event;
use judge_harness::gaps::longest_gap;
use judge_harness::polling::polling_loops;
use judge_harness::{Ctx, Failure, median};
use std::time::Duration;

/// The gate: long enough that a step that waits for it cannot be mistaken.
const GATE: Duration = Duration::from_millis(50);
/// The step queued behind the gate: in the second window, not its last step.
const GATE_STEP: usize = LOG_EVERY + 2;
/// How far above the GPU-bound limit, or off the judge's events, is allowed.
const TOLERANCE: f64 = 0.10;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

pub(super) fn a_step_returns_before_the_gate(ctx: &Ctx) -> Result<(), Failure> {
    let bench = Bench::open(ctx)?;
    let mut server = bench.server()?;
    for t in 0..GATE_STEP {
        bench.step(&mut server, t)?;
    }
    bench.compute.spin(GATE)?;
    bench.copy.spin(GATE)?;
    let mark = bench.device.trace_mark();
    let started = bench.device.now();
    bench.step(&mut server, GATE_STEP)?;
    let took = bench.device.now() - started;
    ctx.save_trace("gate", &bench.device);
    if took < GATE / 2 {
        return Ok(());
    }
    let trace = bench.device.trace();
    let calls = trace.since(mark);
    let slowest = calls.iter().max_by_key(|e| e.cpu_ns());
    let expected = format!(
        "step {GATE_STEP}, queued behind a {} ms spin on both streams, to return in well under {} ms",
        ms(GATE),
        ms(GATE / 2)
    );
    // A poll is many short calls, none the slowest: name it before a
    // longer call of the step's own (the scheduler's host work) is blamed.
    if let Some(poll) = polling_loops(calls.iter()).into_iter().next() {
        return Err(Failure::new(
            expected,
            format!(
                "it returned after {:.1} ms: it called `{}` {} times in a row at {}, a CPU that polls until the GPU is done, which waits for the GPU as surely as a synchronize (and burns a core doing it)",
                ms(took),
                poll.first.name,
                poll.times,
                poll.first.site
            ),
        )
        .at(poll.first.site)
        .detail("a step queues its work and returns; where the CPU needs a result, wait once per log window (`Event::synchronize` waits without spinning); see hidden-syncs.md#cpu-waits-and-gpu-waits"));
    }
    let from = started.as_nanos() as u64;
    let gap = longest_gap(calls, from, from + took.as_nanos() as u64);
    if let Some(gap) = gap.filter(|g| slowest.is_none_or(|e| g.ns > e.cpu_ns())) {
        let site = gap.before.or(gap.after).map(|e| e.site);
        let failure = Failure::new(
            expected,
            format!("it returned after {:.1} ms: {}", ms(took), gap.describe()),
        )
        .detail("a step queues its work and returns; time the CPU spends between the calls is the step's own: see hidden-syncs.md#finding-hidden-syncs");
        return Err(match site {
            Some(site) => failure.at(site),
            None => failure,
        });
    }
    let mut failure = Failure::new(
        expected,
        format!(
            "it returned after {:.1} ms: the CPU waited for the GPU",
            ms(took)
        ),
    );
    if let Some(e) = slowest {
        let why = e.blocking.map_or("".to_string(), |r| format!(": {r}"));
        failure = failure.at(e.site).detail(format!(
            "the call that waited: `{}` at {}, {:.1} ms{why}; see hidden-syncs.md#finding-hidden-syncs",
            e.name,
            e.site,
            e.cpu_ns() as f64 / 1e6
        ));
    }
    Err(failure)
}

/// GPU time of one decoder step on the workload's batch, alone on the
/// compute stream: the GPU-bound limit of a step.
fn decoder_alone_ms(bench: &Bench) -> Result<f64, Failure> {
    let c = &bench.compute;
    let tokens = c.alloc_zeros::<i32>(BATCH)?;
    let out = c.alloc_zeros::<i32>(BATCH)?;
    c.decode_step(&bench.decoder, &tokens, &out)?; // warm-up
    let start = c.record_event()?;
    let reps = 8;
    for _ in 0..reps {
        c.decode_step(&bench.decoder, &tokens, &out)?;
    }
    let end = c.record_event()?;
    Ok(f64::from(start.elapsed_ms(&end)?) / f64::from(reps))
}

/// Runs the workload with an event recorded on the compute stream before
/// each step and after the last; returns the server's report, the events
/// and the trace marks taken after recording each event, then one at the end.
fn timed_run(bench: &Bench) -> Result<(sync_elimination::Report, Vec<Event>, Vec<u64>), Failure> {
    let (mut events, mut marks) = (Vec::new(), Vec::new());
    let report = bench.run(STEPS, |_| {
        events.push(bench.compute.record_event()?);
        marks.push(bench.device.trace_mark());
        Ok(())
    })?;
    // The run's end: the judge's own reads of the events come after it.
    marks.push(bench.device.trace_mark());
    Ok((report, events, marks))
}

pub(super) fn step_time_reaches_the_gpu_bound_limit(ctx: &Ctx) -> Result<(), Failure> {
    let bench = Bench::open(ctx)?;
    let limit = decoder_alone_ms(&bench)?;
    let (_, events, _) = timed_run(&bench)?;
    ctx.save_trace("step_time", &bench.device);
    let steady = (STEPS - STEADY_FROM) as f64;
    let step = f64::from(events[STEADY_FROM].elapsed_ms(&events[STEPS])?) / steady;
    if step <= limit * (1.0 + TOLERANCE) {
        return Ok(());
    }
    Err(Failure::new(
        format!(
            "a steady-state step within 10% of the decoder step alone ({limit:.2} ms, measured in this run): at most {:.2} ms",
            limit * (1.0 + TOLERANCE)
        ),
        format!(
            "{step:.2} ms a step ({:+.0}%): the GPU idles while the CPU catches up after each wait",
            (step / limit - 1.0) * 100.0
        ),
    )
    .detail("a CPU wait in every step puts the scheduler's CPU time and the submission between two GPU steps; one wait per log window leaves the GPU busy; see hidden-syncs.md#where-to-put-the-sync-points"))
}

pub(super) fn reported_step_times_match_events(ctx: &Ctx) -> Result<(), Failure> {
    let bench = Bench::open(ctx)?;
    let (report, events, marks) = timed_run(&bench)?;
    ctx.save_trace("step_times", &bench.device);
    let mut judged = Vec::new();
    for t in STEADY_FROM..STEPS {
        judged.push(f64::from(events[t].elapsed_ms(&events[t + 1])?));
    }
    let Some(reported) = report.step_ms.get(STEADY_FROM..STEPS) else {
        return Err(Failure::new(
            format!("{STEPS} step times"),
            format!("{}", report.step_ms.len()),
        ));
    };
    let (theirs, ours) = (median(reported), median(&judged));
    if (theirs - ours).abs() <= ours * TOLERANCE {
        return Ok(());
    }
    let trace = bench.device.trace();
    // The learner's own event reads, in the run (the judge's come after it).
    let end = marks.last().copied().unwrap_or(u64::MAX);
    let timed_by_events = trace
        .since(marks[0])
        .iter()
        .take_while(|e| e.seq < end)
        .any(|e| e.op == gpu::OpKind::EventElapsed);
    // The learner's calls in one steady-state step: between two of the
    // judge's marks, less the judge's own event (created, then recorded) that ends it.
    let step: Vec<&gpu::TraceEntry> = trace
        .since(marks[STEADY_FROM])
        .iter()
        .take_while(|e| e.seq + 2 < marks[STEADY_FROM + 1])
        .collect();
    let growing = reported.windows(2).all(|w| w[1] > w[0])
        && reported.last().is_some_and(|&last| last > 2.0 * ours);
    let why = if growing {
        format!(
            "your step times grow step after step ({:.3} ms at step {STEADY_FROM}, {:.3} ms at the last): each is measured from the start of the run, not from the end of the step before; time each step from its own start",
            reported[0],
            reported[reported.len() - 1]
        )
    } else if timed_by_events {
        "your times come from events, but not from one pair around each step: record an event on the compute stream before the step's work and one after it".into()
    } else {
        "a CPU timer around GPU work measures the submit, not the GPU (the run never read an event time with `elapsed_ms`)".into()
    };
    let mut failure = Failure::new(
        format!("a median step time within 10% of the GPU's: {ours:.3} ms (the judge's events)"),
        format!("{theirs:.3} ms: {why}"),
    );
    let mut detail = String::new();
    if let (Some(first), Some(last)) = (step.first(), step.last()) {
        failure = failure.at(first.site);
        detail = format!(
            "step {STEADY_FROM} took the CPU {:.3} ms, from `{}` at {} to `{}` at {}; a step takes the GPU {:.3} ms (median)\n",
            (last.cpu_end_ns - first.cpu_start_ns) as f64 / 1e6,
            first.name,
            first.site,
            last.name,
            last.site,
            ours
        );
    }
    Err(failure.detail(detail + "time a step with events recorded on the compute stream, and read `elapsed_ms` after the loop, where waiting costs nothing; see hidden-syncs.md#timing-gpu-work"))
}
