//! Between the first step's launch and the last, read from the trace: no
//! call that waits for the GPU and no token that travels between the host
//! and the device. Each kind of call found there has its own cause.

use super::support::{PROMPTS, STEPS, chosen, describe, launches, setup};
use gpu::{BlockReason, OpKind, TraceEntry};
use judge_harness::polling::polling_loops;
use judge_harness::{Ctx, Failure};

pub(super) fn no_step_waits_for_the_gpu(ctx: &Ctx) -> Result<(), Failure> {
    let (device, stream, decoder) = setup(ctx)?;
    chosen()(&stream, &decoder, &PROMPTS, STEPS)?;
    ctx.save_timeline(&device);
    between_the_steps(&device.trace().entries)
}

/// What the check expects, in words.
const EXPECTED: &str = "between the first `decode_step` launch and the last, no call that waits for the GPU and no copy between the host and the device: the CPU queues every step at once";

/// The check on a trace of one run of [`STEPS`] steps.
pub(super) fn between_the_steps(entries: &[TraceEntry]) -> Result<(), Failure> {
    let at = launches(entries);
    if at.len() != STEPS {
        return Err(launch_count(at.len()));
    }
    let between = &entries[at[0]..at[STEPS - 1]];
    let mut found: Vec<(&TraceEntry, Kind)> = between
        .iter()
        .filter_map(|e| Kind::of(e).map(|k| (e, k)))
        .collect();
    let read = found
        .iter()
        .any(|(_, k)| matches!(k, Kind::PageableRead | Kind::PinnedRead));
    if read {
        for (_, kind) in &mut found {
            if *kind == Kind::Upload {
                *kind = Kind::RoundTrip;
            }
        }
    }
    let Some(&(first, kind)) = found.first() else {
        return polling(between);
    };
    let times = found.iter().filter(|(_, k)| *k == kind).count();
    let mut failure = Failure::new(
        EXPECTED,
        format!(
            "{}, and {times} such call(s) in all between the first launch and the last: {}",
            describe(first),
            kind.cause()
        ),
    )
    .at(first.site);
    let mut others: Vec<Kind> = found
        .iter()
        .map(|(_, k)| *k)
        .filter(|k| *k != kind)
        .collect();
    others.dedup();
    if let Some(other) = others.first() {
        failure = failure.detail(format!("also between the steps: {}", other.cause()));
    }
    Err(failure)
}

/// One launch per step, or the check has nothing to read.
pub(super) fn launch_count(launches: usize) -> Failure {
    Failure::new(
        format!("one `decode_step` launch per step: {STEPS} for {STEPS} steps"),
        format!(
            "{launches} `decode_step` launch(es): each step is one `decode_step`, from the tokens the step before chose"
        ),
    )
}

/// A loop of queries between the steps, if there is one.
fn polling(between: &[TraceEntry]) -> Result<(), Failure> {
    let Some(lp) = polling_loops(between).into_iter().next() else {
        return Ok(());
    };
    Err(Failure::new(
        EXPECTED,
        format!(
            "`{}` called {} times from one line between the steps: a CPU that polls until the GPU is done waits for it as surely as a synchronize, and burns a core doing it; nothing in the loop needs the GPU to be done",
            lp.first.name, lp.times
        ),
    )
    .at(lp.first.site))
}

/// A kind of call that does not belong between the steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A copy into pageable memory (`to_vec`, `copy_to_host`).
    PageableRead,
    /// A copy into pinned memory.
    PinnedCopy,
    /// A copy from host memory to the device.
    Upload,
    /// A copy from host memory to the device in a loop that also reads
    /// the tokens back: the tokens' round trip.
    RoundTrip,
    /// A stream, event or device synchronize.
    Synchronize,
    /// The CPU read pinned memory.
    PinnedRead,
    /// Any other call that can make the CPU wait.
    OtherWait(BlockReason),
}

impl Kind {
    fn of(e: &TraceEntry) -> Option<Self> {
        Some(match (e.op, e.blocking) {
            (OpKind::CopyDeviceToHost, Some(BlockReason::PageableDeviceToHost)) => {
                Self::PageableRead
            }
            (OpKind::CopyDeviceToHost, _) => Self::PinnedCopy,
            (OpKind::CopyHostToDevice, _) => Self::Upload,
            (
                OpKind::StreamSynchronize | OpKind::EventSynchronize | OpKind::DeviceSynchronize,
                _,
            ) => Self::Synchronize,
            (OpKind::HostRead, _) => Self::PinnedRead,
            (_, Some(reason)) => Self::OtherWait(reason),
            _ => return None,
        })
    }

    /// The cause, for the learner.
    fn cause(self) -> String {
        match self {
            Self::PageableRead => "the tokens are read into host memory every step, the `.tolist()` habit: a copy into pageable memory returns only once the GPU has run the step, so the CPU waits for every step and never runs ahead. Nothing on the CPU needs a token before the end: read them once, after the last launch".into(),
            Self::PinnedCopy => "each step's tokens are copied to pinned memory: the copy does not wait, but nothing on the CPU needs a token before the end, and each copy is a transfer the steps do not need. Keep the tokens in device memory and read them once, after the last launch".into(),
            Self::RoundTrip => "tokens are uploaded from the host between the steps, after a read of them: the next step's input is the step's own output, already in device memory, so the round trip through the CPU only sends back tokens that never had to leave the GPU. Upload the prompts once, before the first step".into(),
            Self::Upload => "a copy from the host between the steps: nothing a step needs comes from the CPU once the prompts are uploaded (the next step's input is the step before's output, and `decode_step` writes every token of its output row, so there is nothing to clear or send again), and a copy from pageable memory is a call that can make the CPU wait. Upload the prompts once, before the first step".into(),
            Self::Synchronize => "the CPU synchronizes between the steps: it waits for the GPU to finish a step before it launches the next, so the GPU idles while the CPU catches up. Stream order already runs step s + 1 after step s; no wait is needed before the end".into(),
            Self::PinnedRead => "the CPU reads pinned memory between the steps: whatever it reads there is not needed before the end, and reading it right needs a wait for the GPU first".into(),
            Self::OtherWait(reason) => format!(
                "a call that can make the CPU wait between the steps ({reason}); nothing in the loop needs one before the end"
            ),
        }
    }
}
