//! The GPU never waits for the CPU, measured on the trace of one run with
//! 1.5 ms of CPU work on each step's tokens: the GPU's idle time between one
//! step's end and the next one's start. The CPU reads step s's slot while
//! step s + 1 runs, so the GPU always has the next step queued; a wait on
//! the newest slot, or a copy that waits, leaves it idle for the CPU's work.

use super::copies::launch_count;
use super::support::{HOST_WORK, PROMPTS, STEPS, chosen, describe, launches, ms, setup_on};
use gpu::{BlockReason, OpKind, TraceEntry};
use judge_harness::gaps::longest_gap;
use judge_harness::polling::polling_loops;
use judge_harness::{Ctx, Failure};

/// The most the GPU may idle between two steps: a copy of 28 bytes and an
/// event record take microseconds, the CPU's work 1.5 ms.
const IDLE_LIMIT_NS: u64 = 200_000;

pub(super) fn the_gpu_never_waits_for_the_cpu(ctx: &Ctx) -> Result<(), Failure> {
    let device = ctx.timed_device()?;
    let (stream, decoder) = setup_on(&device)?;
    chosen()(&stream, &decoder, &PROMPTS, STEPS, HOST_WORK)?;
    stream.synchronize()?;
    ctx.save_timeline(&device);
    idle_between_steps(&device.trace().entries)
}

/// The check on the (timed) trace of one run of [`STEPS`] steps.
pub(super) fn idle_between_steps(entries: &[TraceEntry]) -> Result<(), Failure> {
    let at = launches(entries);
    if at.len() != STEPS {
        return Err(launch_count(at.len()));
    }
    let Some(spans) = at
        .iter()
        .map(|&i| entries[i].gpu)
        .collect::<Option<Vec<_>>>()
    else {
        return Err(Failure::new(
            "the GPU start and end of every step in the trace",
            "a step without GPU times: the device did not time the steps",
        ));
    };
    let gaps: Vec<u64> = spans
        .windows(2)
        .map(|w| w[1].start_ns.saturating_sub(w[0].end_ns))
        .collect();
    let (k, &worst) = gaps
        .iter()
        .enumerate()
        .max_by_key(|(_, g)| **g)
        .expect("twelve steps, eleven gaps");
    if worst < IDLE_LIMIT_NS {
        return Ok(());
    }
    let total: u64 = gaps.iter().sum();
    let window = &entries[at[k] + 1..at[k + 1]];
    let (cause, site) = why(k, window, spans[k].end_ns, recorded_in_read(entries, &at));
    let actual = format!(
        "the GPU idled {} in all between the {STEPS} steps ({} a step on average), {} of it between step {k} and step {}: {cause}",
        ms(total as f64),
        ms(total as f64 / gaps.len() as f64),
        ms(worst as f64),
        k + 1
    );
    let expected = format!(
        "with {} of CPU work on each step's tokens, the GPU idle under {} between two steps: step s + 1 queued before the CPU waits for step s's slot",
        ms(HOST_WORK.as_nanos() as f64),
        ms(IDLE_LIMIT_NS as f64)
    );
    Err(Failure::new(expected, actual).at(site.unwrap_or(entries[at[k + 1]].site)))
}

/// Whether the run recorded no event between step 0's launch and step 1's
/// (after the copy into step 0's slot) but one between each later pair:
/// the slots' events recorded at `read`.
fn recorded_in_read(entries: &[TraceEntry], at: &[usize]) -> bool {
    let records = |w: &[usize]| {
        entries[w[0] + 1..w[1]]
            .iter()
            .filter(|e| e.op == OpKind::EventRecord)
            .count()
    };
    let mut windows = at.windows(2);
    windows.next().is_some_and(|w| records(w) == 0) && windows.all(|w| records(w) > 0)
}

/// Why the CPU launched step `k + 1` late, read from the calls it made after
/// step `k`'s launch (`window`); step `k` finished on the GPU at `done` (ns).
/// `late` says that no event was recorded after the copy into step 0's slot
/// before step 1's launch, while later steps recorded one: the events are
/// recorded when a slot is read, not after the copy into it.
fn why(k: usize, window: &[TraceEntry], done: u64, late: bool) -> (String, Option<gpu::CallSite>) {
    let waited = window
        .iter()
        .filter(|e| e.blocking.is_some())
        .max_by_key(|e| e.cpu_ns());
    if let Some(e) = waited {
        let cause = match e.blocking {
            Some(BlockReason::EventSynchronize) if e.cpu_end_ns >= done && late => format!(
                "the CPU's event wait after step {k}'s launch ({}) returned only once step {k} itself had finished on the GPU: the event it waited on was recorded in `read`, just before the wait, after step {k}'s launch and copy (no event followed the copy into step 0's slot before step 1 was launched), so it stands for everything queued so far, step {k} included. Then the CPU worked on the tokens while the GPU had nothing queued. Record each slot's event in `queue`, right after the copy into it; `read` only waits for slot `read % 2`'s event",
                describe(e)
            ),
            Some(BlockReason::EventSynchronize) if e.cpu_end_ns >= done => format!(
                "the CPU's event wait after step {k}'s launch ({}) returned only once step {k} itself had finished on the GPU: it waited on the newest slot's event (step {k}'s, queued just before), not the older slot's (step {}'s, done while step {k} runs): the event of the slot queued last, or one event recorded again after every copy, which then stands for the newest copy only. Then the CPU worked on the tokens while the GPU had nothing queued. `read` waits for slot `read % 2`'s event",
                describe(e),
                k.saturating_sub(1)
            ),
            Some(BlockReason::PageableDeviceToHost) => format!(
                "the copy into pageable memory after step {k}'s launch ({}) returned only once step {k} had run: the CPU waited for the step it had just launched, then worked on the tokens while the GPU had nothing queued. A copy into a pinned slot returns at once",
                describe(e)
            ),
            Some(BlockReason::StreamSynchronize | BlockReason::DeviceSynchronize) => format!(
                "the CPU synchronized after step {k}'s launch ({}), which waits for step {k} too: then it worked on the tokens while the GPU had nothing queued. Wait for the older slot's event only",
                describe(e)
            ),
            reason => format!(
                "the CPU waited after step {k}'s launch ({}; {}), then worked on the tokens while the GPU had nothing queued",
                describe(e),
                reason.map(|b| b.explain()).unwrap_or_default()
            ),
        };
        if e.cpu_end_ns >= done {
            return (cause, Some(e.site));
        }
    }
    if let Some(lp) = polling_loops(window.iter()).into_iter().next() {
        let cause = format!(
            "`{}` was called {} times from one line after step {k}'s launch: polling until a copy is done waits for the GPU as surely as a synchronize; wait for the older slot's event",
            lp.first.name, lp.times
        );
        return (cause, Some(lp.first.site));
    }
    let start = window.first().map_or(0, |e| e.cpu_start_ns);
    let end = window.last().map_or(0, |e| e.cpu_end_ns);
    match longest_gap(window.iter(), start, end) {
        Some(gap) => (
            format!(
                "after step {k}'s launch the CPU launched the next step only after the GPU had finished step {k}; {}",
                gap.describe()
            ),
            gap.before.or(gap.after).map(|e| e.site),
        ),
        None => (
            format!(
                "after step {k}'s launch the CPU launched the next step only after the GPU had finished step {k}"
            ),
            None,
        ),
    }
}
