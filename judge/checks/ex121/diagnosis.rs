//! Part 1's checks: the learner's `diagnose` of each pair against how the
//! judge built it, one check per regression. A wrong answer is explained
//! by what it points at in the `after` trace, against the truth.

use super::engine::Change;
use super::scenes::{Pair, pairs};
use find_the_regression::Regression;
use gpu::{OpKind, Trace, TraceEntry};
use judge_harness::{Ctx, Failure};

/// A `diagnose` with the exercise's signature.
pub(crate) type Diagnose = fn(&Trace, &Trace) -> Regression;

/// The `diagnose` the checks ask: the learner's, unless a test of the
/// suite put another in its place.
fn chosen() -> Diagnose {
    #[cfg(test)]
    if let Some(other) = super::tests::replacement() {
        return other;
    }
    find_the_regression::diagnose
}

/// Which of the four a regression is, as a number (the order of the enum).
pub(crate) fn kind(r: &Regression) -> usize {
    match r {
        Regression::NewSync { .. } => 0,
        Regression::LostOverlap { .. } => 1,
        Regression::LaunchBound { .. } => 2,
        Regression::AllocationInLoop { .. } => 3,
    }
}

pub(super) fn names_each_new_sync(ctx: &Ctx) -> Result<(), Failure> {
    graded(ctx, 0)
}

pub(super) fn names_each_lost_overlap(ctx: &Ctx) -> Result<(), Failure> {
    graded(ctx, 1)
}

pub(super) fn names_each_launch_bound_range(ctx: &Ctx) -> Result<(), Failure> {
    graded(ctx, 2)
}

pub(super) fn names_each_allocation_in_the_loop(ctx: &Ctx) -> Result<(), Failure> {
    graded(ctx, 3)
}

/// The learner's answer for every pair of regression `which`.
fn graded(ctx: &Ctx, which: usize) -> Result<(), Failure> {
    let pairs = pairs(ctx)?;
    judge(&pairs, which, chosen())
}

/// `diagnose`'s answers for the pairs of regression `which` against the truth.
pub(crate) fn judge(pairs: &[Pair], which: usize, diagnose: Diagnose) -> Result<(), Failure> {
    for pair in pairs.iter().filter(|p| kind(&p.truth) == which) {
        let said = diagnose(&pair.before, &pair.after);
        if said != pair.truth {
            let actual = format!("`diagnose` answered `{said:?}`: {}", cause(pair, &said));
            return Err(Failure::new(truth(pair), actual).detail(
                "`judge run 121 --timeline t.svg` draws every pair's steps, before then after",
            ));
        }
    }
    Ok(())
}

/// The entry of `seq` in `trace`.
fn entry(trace: &Trace, seq: u64) -> Option<&TraceEntry> {
    trace.entries.iter().find(|e| e.seq == seq)
}

/// One entry in words.
fn call(e: &TraceEntry) -> String {
    format!(
        "`{}` (seq {}, stream {})",
        e.name,
        e.seq,
        e.stream.map_or("-".into(), |s| s.to_string())
    )
}

/// What the judge built, in words: the answer it expects.
fn truth(pair: &Pair) -> String {
    let what = match pair.change {
        Change::Sync { layer, read: false } => {
            format!("a `synchronize` after layer {layer}: the CPU now waits there")
        }
        Change::Sync { layer, read: true } => {
            format!("a read of one value into a `Vec` after layer {layer}: the CPU now waits there")
        }
        Change::CopyOnCompute => "the next batch's copy moved onto the compute stream".into(),
        Change::CopyWaitsForCompute => {
            "the next batch's copy made to wait for the layers, and the sampling for it".into()
        }
        Change::Split { layer, attention } => format!(
            "layer {layer}'s {} split into 1 µs kernels",
            if attention { "attention" } else { "MLP" }
        ),
        Change::Alloc { .. } => {
            "a raw scratch segment allocated in the step and freed before the read".into()
        }
        Change::None => "nothing".into(),
    };
    let slower = pair.slower.map_or(String::new(), |l| format!(" (and layer {l}'s first attention kernel 60% slower, which is no regression of the four)"));
    format!(
        "pair {}: `{:?}`, for {what}{slower}",
        pair.number, pair.truth
    )
}

/// Why `said` is not the answer of `pair`, from what it points at.
fn cause(pair: &Pair, said: &Regression) -> String {
    let after = &pair.after;
    match (said, &pair.truth) {
        (Regression::NewSync { seq }, Regression::AllocationInLoop { seq: alloc })
            if entry(after, *seq).is_some_and(|e| e.op == OpKind::FreeSegment) =>
        {
            format!(
                "the call you point at waits, but it is `cuMemFree` (`free_segment`) of the raw segment allocated at seq {alloc} in the same step (`cuMemAlloc`): the wait is what an allocation in the loop costs, not a sync of its own; look for raw allocations before you look for waits (see profiling.md#five-pictures-of-a-slow-step)"
            )
        }
        (Regression::NewSync { seq }, Regression::NewSync { seq: wait })
            if entry(after, *seq).is_some_and(|e| e.op == OpKind::Launch) =>
        {
            format!(
                "{} is a kernel launch, which only queues work and returns at once; the CPU waits in the call after it, {}: point at the call whose CPU row lasts until the GPU's work ends (see profiling.md#where-the-cpu-waits)",
                call(entry(after, *seq).expect("found")),
                entry(after, *wait).map_or(format!("seq {wait}"), call)
            )
        }
        (Regression::NewSync { seq }, _) if waited_before(pair, *seq) => format!(
            "{} waits in `before` too, from the same line: it waits longer after because the GPU has more to do before it, as any slower step makes it; a new sync is a call that waits in `after` with no call from its line that waited in `before` (see profiling.md#from-a-profile-to-a-fix)",
            entry(after, *seq).map_or(format!("seq {seq}"), call)
        ),
        (Regression::LaunchBound { range }, Regression::LaunchBound { range: inner })
            if inner.starts_with(&format!("{range}.")) || range == "step" =>
        {
            format!(
                "`{range}` holds the tiny kernels, but they are all in `{inner}`, nested in it: name the innermost range whose kernels multiplied (see profiling.md#five-pictures-of-a-slow-step)"
            )
        }
        (_, truth) => otherwise(pair, truth),
    }
}

/// Whether the call `seq` of `after` is a wait that `before` makes too,
/// from the same line: in the judge's step, the read of the tokens at its
/// end, which waits in both (the only call of `before` that can wait).
fn waited_before(pair: &Pair, seq: u64) -> bool {
    let Some(call) = entry(&pair.after, seq) else {
        return false;
    };
    let can_wait = |b: &TraceEntry| {
        matches!(
            b.op,
            OpKind::CopyDeviceToHost | OpKind::StreamSynchronize | OpKind::FreeSegment
        )
    };
    let same = |b: &&TraceEntry| b.op == call.op && b.site == call.site;
    pair.before.entries.iter().filter(same).any(can_wait)
}

/// What the traces show of `truth`, for an answer of another kind.
fn otherwise(pair: &Pair, truth: &Regression) -> String {
    let at = |seq: u64| entry(&pair.after, seq).map_or(format!("seq {seq}"), call);
    match truth {
        Regression::NewSync { seq } => format!(
            "the CPU waits in {} in `after`, and no call from its line waited in `before`: its CPU row lasts until the GPU's work queued before it ends (see profiling.md#where-the-cpu-waits)",
            at(*seq)
        ),
        Regression::LostOverlap { seq } => format!(
            "the copy {} ran on the GPU beside the layers' kernels in `before`; in `after` no kernel of another stream runs while it does, so its time adds to the step's (see profiling.md#five-pictures-of-a-slow-step)",
            at(*seq)
        ),
        Regression::LaunchBound { range } => format!(
            "`{range}` has many times the kernels it had in `before`, and the CPU takes longer to launch them than the GPU to run them (see profiling.md#five-pictures-of-a-slow-step)"
        ),
        Regression::AllocationInLoop { seq } => format!(
            "{} is a raw allocation (`cuMemAlloc`) that `before` did not make, freed in the step with `cuMemFree`, which waits for the device (see profiling.md#five-pictures-of-a-slow-step)",
            at(*seq)
        ),
    }
}
