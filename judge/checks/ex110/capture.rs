//! The capture: `new` captures one graph, holding the `decode_step`, and
//! no step captures again.

use super::support::{Run, describe, run};
use gpu::{OpKind, TraceEntry};
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str = "`new` to capture one graph (`begin_capture`, one `decode_step` on the static buffers, `end_capture`), and no step to capture";

pub(super) fn captured_once_in_new(ctx: &Ctx) -> Result<(), Failure> {
    captures(&run(ctx)?)
}

/// The check on the trace of one run.
pub(super) fn captures(run: &Run) -> Result<(), Failure> {
    let in_step = run.steps.iter().enumerate().find_map(|(s, calls)| {
        let begin = calls.iter().find(|e| e.op == OpKind::BeginCapture)?;
        Some((s, begin))
    });
    if let Some((s, begin)) = in_step {
        let times = run
            .steps
            .iter()
            .filter(|calls| calls.iter().any(|e| e.op == OpKind::BeginCapture))
            .count();
        return Err(Failure::new(
            EXPECTED,
            format!(
                "step {s} captures ({}), and {times} of {} steps do: a capture records the step and instantiates a graph, which costs more than the launch it replaces, and a graph captured on the caller's `tokens` and `next` replays on those two views only. Capture once, in `new`, on static buffers of your own; each step only replays",
                describe(begin),
                run.steps.len()
            ),
        )
        .at(begin.site));
    }
    let begins: Vec<&TraceEntry> = run
        .new
        .iter()
        .filter(|e| e.op == OpKind::BeginCapture)
        .collect();
    let captured = run
        .new
        .iter()
        .filter(|e| e.op == OpKind::Launch && e.captured && e.name == "decode_step")
        .count();
    match (begins.as_slice(), captured) {
        ([], _) => Err(Failure::new(
            EXPECTED,
            "`new` captured nothing, and no step did: every step ran `decode_step` eagerly, one launch of its own, which is what a graph replaces. In `new`, call `begin_capture`, queue the one `decode_step` on the static buffers, and keep the graph `end_capture` returns",
        )),
        ([_], 1) => Ok(()),
        ([begin], n) => Err(Failure::new(
            EXPECTED,
            format!(
                "the graph `new` captured holds {n} `decode_step` launch(es): it must hold the one step, from the static input into the static output"
            ),
        )
        .at(begin.site)),
        ([_, second, ..], _) => Err(Failure::new(
            EXPECTED,
            format!(
                "`new` captures {} graphs ({} is the second): one step of one batch size is one graph, captured once",
                begins.len(),
                describe(second)
            ),
        )
        .at(second.site)),
    }
}
