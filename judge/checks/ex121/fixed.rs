//! Part 2's checks: the learner's step, run by the judge ([`super::fix`]),
//! one check per cause that can remain. Each failure names the call, its
//! line, in how many steps, why it costs, and what to do.

use super::engine::{COLS, ROWS};
use super::fix::{Run, STEPS, run};
use gpu::{BlockReason, OpKind, TraceEntry};
use judge_harness::{Ctx, Failure, median};

/// How much slower than the reference's step the learner's may be.
const TOLERANCE: f64 = 1.12;

/// In how many steps a call of `e`'s kind was made from `e`'s line.
fn times(run: &Run, e: &TraceEntry) -> usize {
    let same = |c: &TraceEntry| c.op == e.op && c.site == e.site;
    run.steps.iter().filter(|s| s.iter().any(same)).count()
}

/// `e` in words: what, where, how often.
fn named(run: &Run, e: &TraceEntry) -> String {
    format!(
        "`{}` at {}, in {} of {STEPS} steps",
        e.name,
        e.site,
        times(run, e)
    )
}

pub(super) fn the_tokens_are_the_reference(ctx: &Ctx) -> Result<(), Failure> {
    let run = run(ctx)?;
    tokens(&run)
}

/// Every step's tokens against the reference's.
pub(crate) fn tokens(run: &Run) -> Result<(), Failure> {
    for (t, (got, want)) in run.tokens.iter().zip(&run.expected).enumerate() {
        if got == want {
            continue;
        }
        let actual = format!("step {t}: {}", token_cause(got, want));
        return Err(Failure::new(
            "each step's tokens: the argmax of each row of the batch it ran on, negated",
            actual,
        ));
    }
    Ok(())
}

/// What is wrong with one step's tokens `got`, against `want`.
fn token_cause(got: &[i32], want: &[i32]) -> String {
    if got.len() != want.len() {
        return format!(
            "`step` returned {} tokens, not one per request ({ROWS}): return the read of the step's tokens, one per row (see profiling.md#from-a-profile-to-a-fix)",
            got.len()
        );
    }
    let rows: Vec<usize> = (0..ROWS).filter(|&r| got[r] != want[r]).collect();
    let shown: Vec<String> = rows
        .iter()
        .take(4)
        .map(|&r| format!("row {r}: {} for {}", got[r], want[r]))
        .collect();
    let more = if rows.len() > 4 { ", …" } else { "" };
    format!(
        "the tokens of {} of {ROWS} rows differ ({}{more}): a step's tokens are the argmax of its batch's logits negated, every row of them; when you merge the tiny kernels of layer 2's MLP, the one `affine` must cover every row the tiny ones covered, `ROWS * COLS` values, with the same `a` and `b` (see profiling.md#from-a-profile-to-a-fix)",
        rows.len(),
        shown.join(", ")
    )
}

pub(super) fn only_the_final_read_waits(ctx: &Ctx) -> Result<(), Failure> {
    let run = run(ctx)?;
    waits(&run)
}

/// No call of a step can wait for the GPU but its last, the read.
pub(crate) fn waits(run: &Run) -> Result<(), Failure> {
    for step in &run.steps {
        let last = step.last().map(|e| e.seq);
        let found = step
            .iter()
            .find(|e| e.blocking.is_some() && Some(e.seq) != last);
        if let Some(e) = found {
            let actual = format!(
                "{} can make the CPU wait for the GPU: {}",
                named(run, e),
                wait_cause(e)
            );
            return Err(Failure::new("no call in the step that can make the CPU wait, but the read of the tokens at its end", actual).at(e.site));
        }
    }
    Ok(())
}

/// Why the wait `e` costs, and what to do instead.
fn wait_cause(e: &TraceEntry) -> String {
    match (e.op, e.blocking) {
        (OpKind::EventSynchronize, _) => "the CPU waits for an event (`Event::synchronize`), the copy's arrival: the GPU can wait for it instead, `compute.wait_event(&arrived)`, and the CPU goes on queuing the layers (see profiling.md#where-the-cpu-waits)".into(),
        (OpKind::StreamSynchronize | OpKind::DeviceSynchronize, _) => "an explicit `synchronize` in the step: the GPU idles while the CPU queues the next layer; stream order already runs each layer after the one before, so remove it (see profiling.md#where-the-cpu-waits)".into(),
        (OpKind::CopyDeviceToHost, _) => format!("a read of {} bytes into a `Vec` before the end of the step, a copy into pageable memory that returns only once the GPU has run everything before it: a hidden sync. Keep the value on the GPU; the step reads only its tokens, at its end (see profiling.md#where-the-cpu-waits)", e.bytes),
        (OpKind::FreeSegment | OpKind::FreePinned, _) => "a raw free (`free_segment`, `cudaFree`) waits for every stream of the device: allocate the scratch once, in `new`, and keep it (see profiling.md#five-pictures-of-a-slow-step)".into(),
        (_, reason) => format!("{} (see profiling.md#where-the-cpu-waits)", reason.map(BlockReason::explain).unwrap_or_default()),
    }
}

pub(super) fn nothing_is_allocated_in_the_step(ctx: &Ctx) -> Result<(), Failure> {
    let run = run(ctx)?;
    allocations(&run)
}

/// No allocation or raw free in any step.
pub(crate) fn allocations(run: &Run) -> Result<(), Failure> {
    let alloc = |e: &&TraceEntry| {
        matches!(
            e.op,
            OpKind::AllocSegment | OpKind::FreeSegment | OpKind::AllocPinned | OpKind::Alloc
        )
    };
    let Some(e) = run.steps.iter().flatten().find(alloc) else {
        return Ok(());
    };
    let actual = format!(
        "{}, allocates in the step: memory a step uses is allocated once, in `new`, and reused by every step; `cudaMalloc` is slow and its `cudaFree` waits for the device, and one that happens in some steps only still costs those steps (see profiling.md#five-pictures-of-a-slow-step)",
        named(run, e)
    );
    Err(Failure::new(
        "no allocation in the step: the scratch allocated once, in `new`",
        actual,
    )
    .at(e.site))
}

pub(super) fn the_copy_overlaps_compute(ctx: &Ctx) -> Result<(), Failure> {
    let run = run(ctx)?;
    overlap(&run)
}

/// No race, and each step's copy of the next batch runs on a stream of
/// its own while a kernel of the compute stream runs.
pub(crate) fn overlap(run: &Run) -> Result<(), Failure> {
    if let Some(race) = run.races.first() {
        let actual = format!(
            "the race checker found {} race(s); the first: {race}. A copy on a stream of its own is ordered with the compute stream only by events: record one on the copy stream after the copy, and have the compute stream `wait_event` it before the layers read the batch (see profiling.md#from-a-profile-to-a-fix)",
            run.races.len()
        );
        return Err(Failure::new(
            "the copy on its own stream, ordered with compute by events: no race",
            actual,
        ));
    }
    let bytes = (ROWS * COLS * 4) as u64;
    for (t, step) in run.steps.iter().enumerate() {
        let copy = step
            .iter()
            .find(|e| e.op == OpKind::CopyHostToDevice && e.bytes == bytes);
        let Some(copy) = copy else {
            return Err(Failure::new(
                "each step copies the next batch to the device",
                format!(
                    "step {t} queued no copy of {bytes} bytes to the device: copy `next` in every step (see profiling.md#from-a-profile-to-a-fix)"
                ),
            ));
        };
        if copy.stream == Some(run.compute) {
            return Err(Failure::new(EXPECTED_OVERLAP, format!("{} runs on the compute stream, so it runs between the layers' kernels and adds its time to the step: queue it on a stream of its own, made in `new` (see profiling.md#five-pictures-of-a-slow-step)", named(run, copy))).at(copy.site));
        }
        if !beside_a_kernel(run, copy) {
            return Err(Failure::new(EXPECTED_OVERLAP, format!("{} runs on its own stream but while no kernel of the compute stream runs: it waits for the layers, or they for it; the copy of the next batch waits for nothing of this step, and only the next step's layers wait for it (see profiling.md#five-pictures-of-a-slow-step)", named(run, copy))).at(copy.site));
        }
    }
    Ok(())
}

/// What the overlap check expects, in words.
const EXPECTED_OVERLAP: &str = "the next batch's copy on a stream of its own, running while the compute stream runs the layers";

/// Whether `copy` ran on the GPU while a kernel of the compute stream did.
fn beside_a_kernel(run: &Run, copy: &TraceEntry) -> bool {
    let Some(c) = copy.gpu else { return true };
    let kernels = run
        .trace
        .entries
        .iter()
        .filter(|e| e.op == OpKind::Launch && e.stream == Some(run.compute));
    kernels
        .filter_map(|k| k.gpu)
        .any(|k| k.start_ns < c.end_ns && c.start_ns < k.end_ns)
}

pub(super) fn the_step_is_not_launch_bound(ctx: &Ctx) -> Result<(), Failure> {
    let run = run(ctx)?;
    launch_bound(&run)
}

/// No step launches more kernels than the reference's.
pub(crate) fn launch_bound(run: &Run) -> Result<(), Failure> {
    let most = run
        .steps
        .iter()
        .map(|s| s.iter().filter(|e| e.op == OpKind::Launch).count())
        .max()
        .unwrap_or(0);
    if most <= run.reference_kernels {
        return Ok(());
    }
    let range = busiest_range(run).map_or(String::new(), |(name, n)| {
        format!(", {n} of them in range `{name}`")
    });
    let actual = format!(
        "a step launches {most} kernels{range}; the reference's, {}: many tiny kernels each cost the CPU a launch longer than the GPU takes to run one, so the GPU waits on the CPU. Launch the layer's work as the reference does, one kernel per spin and one `affine` over every row (see profiling.md#five-pictures-of-a-slow-step)",
        run.reference_kernels
    );
    Err(Failure::new(
        format!(
            "at most the reference's {} kernels a step",
            run.reference_kernels
        ),
        actual,
    ))
}

/// The innermost range of the run with the most kernels, and how many.
fn busiest_range(run: &Run) -> Option<(String, usize)> {
    let count = |r: &gpu::Range| {
        run.trace
            .range_entries(r)
            .iter()
            .filter(|e| e.op == OpKind::Launch)
            .count()
    };
    let inner = run
        .trace
        .ranges
        .iter()
        .filter(|r| !run.trace.ranges.iter().any(|o| r.encloses(o)));
    inner
        .map(|r| (r.name.clone(), count(r)))
        .max_by_key(|(_, n)| *n)
}

pub(super) fn the_step_takes_the_reference_time(ctx: &Ctx) -> Result<(), Failure> {
    let run = run(ctx)?;
    time(&run)
}

/// The median step within [`TOLERANCE`] of the reference's, on the same device.
pub(crate) fn time(run: &Run) -> Result<(), Failure> {
    let ms = |ns: &[u64]| median(&ns.iter().map(|&n| n as f64 / 1e6).collect::<Vec<_>>());
    let (mine, reference) = (ms(&run.times), ms(&run.reference_times));
    if mine <= reference * TOLERANCE {
        return Ok(());
    }
    let actual = format!(
        "the median step takes {mine:.3} ms, {:.2} times the reference's {reference:.3} ms on this device: what the other checks name costs that time; `judge run 121 --timeline t.svg` draws the steps (see profiling.md#running-the-judge)",
        mine / reference
    );
    Err(Failure::new(
        format!(
            "a step within {:.0}% of the reference's time",
            (TOLERANCE - 1.0) * 100.0
        ),
        actual,
    ))
}
