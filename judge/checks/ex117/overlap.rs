//! The three stages overlap: the whole run against the physical limit of
//! two copy engines and the SMs, from the GPU time each copy-in, layer and
//! copy-out took in the run itself; a slower run says which stage waited
//! and why.
//!
//! The limit is the longest of three chains that no ordering can shorten:
//! the first copy-in, every layer, the last copy-out; every copy-in, the
//! last layer and copy-out; the first copy-in and layer, every copy-out. The
//! run timed is the second (the first warms up), from the start of its
//! first stage to the end of its last on the GPU's clock: the device
//! buffers' allocation before the loop is not the pipeline's.

use super::workload::{Bench, CHUNK_LEN, CHUNKS, LAYER_KERNEL, SPIN_KERNEL, between};
use gpu::{OpKind, TraceEntry};
use judge_harness::{Ctx, Failure};

/// How far above the limit a run may be.
const TOLERANCE: f64 = 0.10;
const SECTION: &str = "streams-and-events.md#three-stages-copy-in-compute-copy-out";

/// One operation of the run and its GPU span, in nanoseconds.
#[derive(Clone, Copy)]
pub(super) struct Timed<'t> {
    /// The trace entry.
    pub(super) entry: &'t TraceEntry,
    /// When it started on the GPU.
    pub(super) start: u64,
    /// When it ended on the GPU.
    pub(super) end: u64,
}

impl Timed<'_> {
    /// Its GPU time in milliseconds.
    fn ms(&self) -> f64 {
        self.end.saturating_sub(self.start) as f64 / 1e6
    }
}

/// The run's copy-ins, layers (from the start of the layer's `spin` to the
/// end of its `affine_f32`) and copy-outs of whole chunks, in queue order.
pub(super) struct Stages<'t> {
    pub(super) copy_ins: Vec<Timed<'t>>,
    pub(super) layers: Vec<Timed<'t>>,
    pub(super) copy_outs: Vec<Timed<'t>>,
}

impl<'t> Stages<'t> {
    /// The stages of `run` (the trace entries of one run).
    pub(super) fn of(run: &[&'t TraceEntry]) -> Result<Self, Failure> {
        let pick = |op: OpKind, name: Option<&str>, bytes: Option<u64>| {
            run.iter()
                .filter(|e| e.op == op && name.is_none_or(|n| e.name == n))
                .filter(|e| bytes.is_none_or(|b| e.bytes == b))
                .map(|e| timed(e))
                .collect::<Result<Vec<_>, _>>()
        };
        let chunk = Some((CHUNK_LEN * 4) as u64);
        let spins = pick(OpKind::Launch, Some(SPIN_KERNEL), None)?;
        let affines = pick(OpKind::Launch, Some(LAYER_KERNEL), None)?;
        let layers = spins
            .iter()
            .zip(&affines)
            .map(|(s, a)| Timed {
                entry: a.entry,
                start: s.start,
                end: a.end,
            })
            .collect();
        Ok(Self {
            copy_ins: pick(OpKind::CopyHostToDevice, None, chunk)?,
            layers,
            copy_outs: pick(OpKind::CopyDeviceToHost, None, chunk)?,
        })
    }

    /// The physical limit in milliseconds: the longest of the three chains.
    pub(super) fn limit(&self) -> f64 {
        let total = |v: &[Timed<'_>]| v.iter().map(Timed::ms).sum::<f64>();
        let first = |v: &[Timed<'_>]| v.first().map_or(0.0, Timed::ms);
        let last = |v: &[Timed<'_>]| v.last().map_or(0.0, Timed::ms);
        let (a, b, c) = (&self.copy_ins, &self.layers, &self.copy_outs);
        let through_layers = first(a) + total(b) + last(c);
        let through_copy_ins = total(a) + last(b) + last(c);
        let through_copy_outs = first(a) + first(b) + total(c);
        through_layers.max(through_copy_ins).max(through_copy_outs)
    }

    /// The pipeline's span on the GPU clock, in milliseconds: from the
    /// first stage's start to the last one's end.
    pub(super) fn span(&self) -> f64 {
        let all = || {
            [&self.copy_ins, &self.layers, &self.copy_outs]
                .into_iter()
                .flatten()
        };
        let start = all().map(|t| t.start).min().unwrap_or(0);
        let end = all().map(|t| t.end).max().unwrap_or(0);
        end.saturating_sub(start) as f64 / 1e6
    }

    /// The GPU time of every stage of every chunk, one after the other.
    pub(super) fn serial(&self) -> f64 {
        [&self.copy_ins, &self.layers, &self.copy_outs]
            .iter()
            .flat_map(|v| v.iter())
            .map(Timed::ms)
            .sum()
    }
}

/// `e` with its GPU span, or the failure that it has none.
fn timed(e: &TraceEntry) -> Result<Timed<'_>, Failure> {
    match e.gpu {
        Some(span) => Ok(Timed {
            entry: e,
            start: span.start_ns,
            end: span.end_ns,
        }),
        None => Err(Failure::new(
            "every operation of the run timed on the GPU",
            format!("`{}` at {} has no GPU time", e.name, e.site),
        )),
    }
}

pub(super) fn the_stages_overlap(ctx: &Ctx) -> Result<(), Failure> {
    let bench = Bench::open_on(ctx.timed_device()?, CHUNKS)?;
    bench.run()?;
    bench.device.synchronize()?;
    bench.device.clear_trace();
    let (_, before, after) = bench.run()?;
    ctx.save_timeline(&bench.device);
    let trace = bench.device.trace();
    let run = between(&trace, before, after);
    let stages = Stages::of(&run)?;
    let counts = (
        stages.copy_ins.len(),
        stages.layers.len(),
        stages.copy_outs.len(),
    );
    if counts != (CHUNKS, CHUNKS, CHUNKS) {
        return Err(Failure::new(
            format!("{CHUNKS} copy-ins, {CHUNKS} layers and {CHUNKS} copy-outs of whole chunks"),
            format!("{} copy-ins, {} layers and {} copy-outs", counts.0, counts.1, counts.2),
        )
        .detail(format!(
            "copy each chunk in with `copy_from_pinned`, run `layer.forward` once on it, and copy its result out with `copy_to_pinned` into its output; see {SECTION}"
        )));
    }
    let (limit, took) = (stages.limit(), stages.span());
    if took <= limit * (1.0 + TOLERANCE) {
        return Ok(());
    }
    let why = serialized(&bench, &run, &stages);
    Err(Failure::new(
        format!(
            "{CHUNKS} chunks from the first copy-in to the last copy-out in at most 10% more than the physical limit of three engines, {limit:.3} ms (from this run's GPU times)"
        ),
        format!(
            "{took:.3} ms ({:+.0}%; one stage after the other would take {:.3} ms)",
            (took / limit - 1.0) * 100.0,
            stages.serial()
        ),
    )
    .detail(format!("{why}; see {SECTION}")))
}

/// Which stage serialized and why, from the calls the run made and the
/// timeline of its stages.
fn serialized(bench: &Bench, run: &[&TraceEntry], stages: &Stages<'_>) -> String {
    let first = stages.copy_ins[0].entry.seq;
    let last = stages.copy_outs[CHUNKS - 1].entry.seq;
    if let Some(wait) = run
        .iter()
        .find(|e| e.blocking.is_some() && e.seq > first && e.seq < last)
    {
        return format!(
            "the CPU waited in the loop (`{}` at {}): until it returned it queued nothing, so the next stages could not start; order the stages with events and `wait_event`, and wait on the CPU once, after the loop",
            wait.name, wait.site
        );
    }
    let on = |v: &[Timed<'_>], stream: &gpu::Stream| {
        v.iter()
            .find(|t| t.entry.stream != Some(stream.id()))
            .map(|t| t.entry.site)
    };
    for (what, v, stream, name) in [
        ("a copy-in", &stages.copy_ins, &bench.copy_in, "copy_in"),
        ("a layer", &stages.layers, &bench.compute, "compute"),
        ("a copy-out", &stages.copy_outs, &bench.copy_out, "copy_out"),
    ] {
        if let Some(site) = on(v, stream) {
            return format!(
                "{what} (at {site}) is not on `{name}`: a stream runs its work in order, so a stage on another stage's stream takes turns with it; put each stage on its own stream"
            );
        }
    }
    let buffers = run
        .iter()
        .filter(|e| e.op == OpKind::Alloc && e.bytes == (CHUNK_LEN * 4) as u64)
        .count();
    if buffers < 4 {
        return format!(
            "the run allocated {buffers} device buffer(s) for a chunk, fewer than two per stage: with one input (or result) buffer, chunk k + 1 cannot be copied in (or computed) until chunk k's layer (or copy-out) is done reading it; allocate two per stage and use slot k % 2"
        );
    }
    let (a, b, c) = (&stages.copy_ins, &stages.layers, &stages.copy_outs);
    for k in 1..CHUNKS {
        if a[k].start >= c[k - 1].end {
            return format!(
                "chunk {k}'s copy-in started only after chunk {}'s copy-out was done: the copy-in waits for the last stage of the chunk before it, so the chunks go through one at a time; it only needs the layer of chunk k − 2, the last reader of its input buffer",
                k - 1
            );
        }
        if a[k].start >= b[k - 1].end {
            return format!(
                "chunk {k}'s copy-in (at {}) started only after chunk {}'s layer was done: either every chunk uses one input buffer, or the copy-in waits for the latest layer's event where input buffer k % 2 was last read by chunk {}'s layer; use two input buffers and wait for the event of chunk k − 2",
                a[k].entry.site,
                k - 1,
                k.saturating_sub(2)
            );
        }
        if b[k].start >= c[k - 1].end {
            return format!(
                "chunk {k}'s layer (at {}) started only after chunk {}'s copy-out was done: either every chunk uses one result buffer, or the layer waits for the latest copy-out's event where result buffer k % 2 was last read by chunk {}'s copy-out; use two result buffers and wait for the event of chunk k − 2",
                b[k].entry.site,
                k - 1,
                k.saturating_sub(2)
            );
        }
    }
    "the stages overlap only in part: something still orders a stage after another chunk's later stage, or the CPU falls behind".into()
}
