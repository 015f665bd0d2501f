//! The captured buffers outlive the graph: a graph replays on the addresses
//! it captured, so the buffers it was captured with stay allocated as long
//! as it may be launched. Read from the trace: no device buffer allocated
//! in `new` before the capture's end is freed after it, in `new` or in a
//! step (a buffer of that size freed then can only be one of them, or one
//! the step should not have made).
//!
//! Nothing else sees it: once freed, the memory may be handed out again to
//! the next allocation of its size (the stream-ordered pool does so on a
//! real GPU as on the virtual one), and the replays then run on that new
//! buffer, by chance, with the right tokens.

use super::support::{Run, run};
use gpu::{OpKind, TraceEntry};
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str = "the buffers the graph was captured with (allocated in `new` before the capture) to stay allocated as long as the graph may be launched: none freed after `end_capture`";

pub(super) fn captured_buffers_outlive_the_graph(ctx: &Ctx) -> Result<(), Failure> {
    kept(&run(ctx)?)
}

/// The check on the trace of one run.
pub(super) fn kept(run: &Run) -> Result<(), Failure> {
    let Some(end) = run.new.iter().rposition(|e| e.op == OpKind::EndCapture) else {
        return Ok(()); // no graph: `captured_once_in_new` says so
    };
    // The device buffers `new` made before the capture ended, less those it
    // freed before then (the most recent of a size first).
    let mut before: Vec<&TraceEntry> = Vec::new();
    for e in &run.new[..end] {
        match e.op {
            OpKind::Alloc => before.push(e),
            OpKind::Free => {
                if let Some(i) = before.iter().rposition(|a| a.bytes == e.bytes) {
                    before.remove(i);
                }
            }
            _ => {}
        }
    }
    let capture = &run.new[end];
    let after = run.new[end + 1..]
        .iter()
        .map(|e| ("in `new`".to_string(), e))
        .chain(
            run.steps
                .iter()
                .enumerate()
                .flat_map(|(s, calls)| calls.iter().map(move |e| (format!("in step {s}"), e))),
        );
    for (when, free) in after.filter(|(_, e)| e.op == OpKind::Free) {
        let Some(allocated) = before.iter().find(|a| a.bytes == free.bytes) else {
            continue;
        };
        // A buffer dropped is freed at no line of the learner's.
        let how = match free.site.line {
            0 => format!("dropped {when}"),
            _ => format!("freed {when}, at {}", free.site),
        };
        return Err(Failure::new(
            EXPECTED,
            format!(
                "a buffer of {} bytes allocated at {}, before the capture ended at {}, is {how}, while the graph may still be launched: a graph replays on the addresses it captured, so every later replay decodes from and into freed memory (here handed out again to a later allocation, or the replays would have failed: the tokens are right only by that chance). Allocate the static input and output once, capture on those very buffers, and keep them in the struct beside the graph, as long as the graph",
                free.bytes, allocated.site, capture.site
            ),
        )
        .at(allocated.site));
    }
    Ok(())
}
