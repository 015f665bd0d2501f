//! The sync report of the steady state, and the launch shapes.

use super::report;
use super::support::Bench;
use super::workload::{BATCH, HIDDEN, LOG_EVERY, STEADY_FROM, STEPS, VOCAB};
use gpu::{CallSite, Device, OpKind, Trace};
use judge_harness::{Ctx, Failure};
use std::collections::BTreeMap;

/// Runs the workload with a trace mark before each step; returns the trace
/// and the marks, after `save` has saved the device's trace.
fn traced_run(ctx: &Ctx, save: impl FnOnce(&Device)) -> Result<(Trace, Vec<u64>), Failure> {
    let bench = Bench::open(ctx)?;
    let mut marks = Vec::new();
    bench.run(STEPS, |_| {
        marks.push(bench.device.trace_mark());
        Ok(())
    })?;
    save(&bench.device);
    Ok((bench.device.trace(), marks))
}

pub(super) fn one_wait_per_log_window(ctx: &Ctx) -> Result<(), Failure> {
    let (trace, marks) = traced_run(ctx, |device| ctx.save_timeline(device))?;
    let calls = report::blocking_calls(&trace, &marks, STEADY_FROM);
    let Some((what, call)) = report::problem(&calls, STEADY_FROM, STEPS, LOG_EVERY) else {
        return Ok(());
    };
    let mut failure = Failure::new(
        format!(
            "one call that can block at each log boundary (steps {}, {}, …) and none elsewhere",
            LOG_EVERY * 2 - 1,
            LOG_EVERY * 3 - 1
        ),
        what,
    )
    .detail(report::render(&calls, STEADY_FROM, STEPS, LOG_EVERY));
    if let Some(call) = call {
        failure = failure.at(call.site);
    }
    Err(failure)
}

/// The batch a `decode_step` launch ran on, from the bytes it touched
/// (the tokens in and out, 4 bytes each, and the two weight matrices).
fn decoder_batch(bytes: u64) -> u64 {
    bytes.saturating_sub(8 * (VOCAB * HIDDEN) as u64) / 8
}

fn shape(name: &str, bytes: u64) -> String {
    if name == "decode_step" {
        format!("a batch of {}", decoder_batch(bytes))
    } else {
        format!("{bytes} bytes")
    }
}

pub(super) fn launch_shapes_are_fixed(ctx: &Ctx) -> Result<(), Failure> {
    let (trace, marks) = traced_run(ctx, |device| ctx.save_trace("shapes", device))?;
    // For each launch site, the first shape seen and the step it was seen at.
    let mut first: BTreeMap<(String, CallSite), (u64, usize)> = BTreeMap::new();
    for (step, window) in marks.windows(2).enumerate().skip(STEADY_FROM) {
        let entries = trace.since(window[0]);
        for e in entries
            .iter()
            .take_while(|e| e.seq < window[1])
            .filter(|e| e.op == OpKind::Launch)
        {
            let (bytes, seen) = *first
                .entry((e.name.clone(), e.site))
                .or_insert((e.bytes, step));
            if bytes != e.bytes {
                return Err(Failure::new(
                    format!(
                        "`{}` launched with one shape in every step (the batch stays {BATCH}, finished requests masked on the GPU)",
                        e.name
                    ),
                    format!(
                        "a data-dependent shape: {} at step {seen}, {} at step {step}; the size came from data the CPU read back from the GPU, a sync every step",
                        shape(&e.name, bytes),
                        shape(&e.name, e.bytes)
                    ),
                )
                .at(e.site)
                .detail("see hidden-syncs.md#data-dependent-shapes-and-control-flow"));
            }
        }
    }
    Ok(())
}
