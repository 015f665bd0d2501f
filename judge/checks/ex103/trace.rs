//! The trace of steady-state steps: one graph launch each, and nothing else
//! that costs: no capture, no kernel of the model, no call that blocks.

use super::support::{batch_sizes, runner};
use gpu::{OpKind, TraceEntry};
use graph_buffers::{BUCKETS, LAYERS, MAX_ROWS, Model, WIDTH};
use judge_harness::{Ctx, Failure};

/// Steps run before the ones the check looks at.
const WARM_STEPS: usize = 3;

pub(super) fn one_graph_launch_per_step(ctx: &Ctx) -> Result<(), Failure> {
    let device = ctx.device()?;
    let stream = device.new_stream()?;
    let model = Model::new();
    let input = stream.alloc_zeros::<f32>(MAX_ROWS * WIDTH)?;
    let output = stream.alloc_zeros::<f32>(MAX_ROWS * WIDTH)?;
    stream.fill(&input, 0.5)?;
    let setup = device.trace_mark();
    let mut runner = runner(&stream, &model)?;
    warmed_up_before_capturing(device.trace().since(setup))?;
    captured_every_bucket(device.trace().since(setup))?;
    let mut marks = Vec::new();
    for (k, rows) in batch_sizes().into_iter().take(WARM_STEPS + 16).enumerate() {
        if k == WARM_STEPS {
            stream.synchronize()?;
            device.clear_trace();
        }
        marks.push((device.trace_mark(), rows));
        let n = rows * WIDTH;
        runner
            .decode(&[input.slice(0..n)], &[output.slice(0..n)])
            .map_err(|e| {
                Failure::new(format!("a step of {rows} rows to succeed"), e.to_string())
            })?;
    }
    marks.push((device.trace_mark(), 0));
    stream.synchronize()?;
    ctx.save_timeline(&device);
    let trace = device.trace();
    let steps = &marks[WARM_STEPS..];
    for (i, pair) in steps.windows(2).enumerate() {
        let ((mark, rows), (end, _)) = (pair[0], pair[1]);
        let entries: Vec<&TraceEntry> = trace
            .since(mark)
            .iter()
            .take_while(|e| e.seq < end)
            .collect();
        judge_step(i + WARM_STEPS, rows, &entries)?;
    }
    Ok(())
}

/// Fails unless `Runner::new` (its calls, `entries`) ran the model once
/// eagerly, every layer, before its first capture.
fn warmed_up_before_capturing(entries: &[TraceEntry]) -> Result<(), Failure> {
    let first_capture = entries
        .iter()
        .position(|e| e.op == OpKind::BeginCapture)
        .unwrap_or(entries.len());
    let eager = entries[..first_capture]
        .iter()
        .filter(|e| e.op == OpKind::Launch && !e.captured)
        .count();
    if eager >= LAYERS {
        return Ok(());
    }
    let failure = Failure::new(
        format!(
            "Runner::new to run the model once eagerly ({LAYERS} launches) before its first capture"
        ),
        format!("{eager} kernel launches before the first `begin_capture`"),
    );
    let failure = match entries.get(first_capture) {
        Some(capture) => failure.at(capture.site),
        None => failure,
    };
    Err(failure.detail(
        "no warm-up: run the model once, outside any capture, before capturing it; a first run may allocate, load modules or pick algorithms, none of which a capture may do; see cuda-graphs.md#warm-up-before-capture",
    ))
}

/// Fails unless `Runner::new` (its calls, `entries`) captured a graph for
/// every bucket: whatever the batches to come, no step may capture.
fn captured_every_bucket(entries: &[TraceEntry]) -> Result<(), Failure> {
    let captures: Vec<&TraceEntry> = entries
        .iter()
        .filter(|e| e.op == OpKind::EndCapture)
        .collect();
    if captures.len() >= BUCKETS.len() {
        return Ok(());
    }
    let failure = Failure::new(
        format!(
            "Runner::new to capture one graph per bucket of {BUCKETS:?}, {} captures, before the first step",
            BUCKETS.len()
        ),
        format!(
            "Runner::new captured {} graph(s) where there are {} buckets",
            captures.len(),
            BUCKETS.len()
        ),
    );
    let failure = match captures.last() {
        Some(capture) => failure.at(capture.site),
        None => failure,
    };
    Err(failure.detail(
        "a bucket whose graph is not captured in `Runner::new` is captured in a step, the first time a batch needs it (or never, and its batches replay another bucket's graph): that step pays for a capture, far more than running the model eagerly, and a capture in `decode` breaks the rule that a step only queues work. Capture every bucket's graph in `Runner::new`, after the warm-up; see cuda-graphs.md#one-graph-per-bucket",
    ))
}

/// Fails unless `entries`, the calls of step `k`, hold exactly one graph
/// launch and nothing that captures, blocks, or runs the model eagerly.
fn judge_step(k: usize, rows: usize, entries: &[&TraceEntry]) -> Result<(), Failure> {
    let expected = "exactly one graph launch per step after warm-up (plus the copies in and out and the padding), no capture, nothing that blocks";
    let listing = || listing(entries);
    let fail = |actual: String, at: Option<&TraceEntry>| {
        let failure = Failure::new(expected, format!("step {k} ({rows} rows): {actual}"))
            .detail(format!("the step's calls:\n{}", listing()));
        match at {
            Some(e) => failure.at(e.site),
            None => failure,
        }
    };
    if let Some(e) = entries
        .iter()
        .find(|e| matches!(e.op, OpKind::BeginCapture | OpKind::EndCapture))
    {
        return Err(fail(
            format!(
                "it began a capture (`{}`): capturing every step costs more than running eagerly. Capture once per bucket in `Runner::new`, then only replay",
                e.name
            ),
            Some(e),
        ));
    }
    if let Some(e) = entries.iter().find(|e| e.blocking.is_some()) {
        return Err(fail(
            format!(
                "`{}` blocks the CPU ({}): a step must only queue work",
                e.name,
                e.blocking.map(|r| r.explain()).unwrap_or_default()
            ),
            Some(e),
        ));
    }
    if let Some(e) = entries.iter().find(|e| e.op == OpKind::Alloc) {
        return Err(fail(
            format!(
                "it allocates (`{}`, {} bytes) in every step: a step only queues work on the buffers `Runner::new` allocated once, the static input first; stage the batch and its padding there, not in a buffer of its own",
                e.name, e.bytes
            ),
            Some(e),
        ));
    }
    let graphs = entries
        .iter()
        .filter(|e| e.op == OpKind::GraphLaunch)
        .count();
    let kernels = entries.iter().filter(|e| e.op == OpKind::Launch).count();
    if graphs != 1 {
        let why = if graphs == 0 && kernels >= LAYERS {
            format!("no graph launch and {kernels} kernel launches: the step ran the model eagerly")
        } else {
            format!("{graphs} graph launches and {kernels} kernel launches")
        };
        return Err(fail(why, entries.first().copied()));
    }
    if let Some((why, at)) = padding_unwritten(rows, entries) {
        return Err(fail(why, at.or_else(|| graph_launch(entries))));
    }
    if kernels > 1 {
        return Err(fail(
            format!(
                "{kernels} kernel launches besides the graph: only the padding may be a kernel, the model runs inside the graph"
            ),
            entries.iter().find(|e| e.op == OpKind::Launch).copied(),
        ));
    }
    Ok(())
}

/// The step's graph launch.
fn graph_launch<'a>(entries: &[&'a TraceEntry]) -> Option<&'a TraceEntry> {
    entries
        .iter()
        .find(|e| e.op == OpKind::GraphLaunch)
        .copied()
}

/// Why the padding rows of a batch of `rows` are wrong before the graph
/// launch, if they are: a fill that also covers the batch's last rows, a
/// fill of the whole bucket after the batch was copied in, or nothing (a
/// fill, a memset or a copy) that wrote as many bytes as the padding holds,
/// from the batch's last row to its bucket's, or as the whole bucket (a
/// padded batch copied in at once). A bucket too small is the bucket
/// check's to tell. With the call to point at: the fill that is the cause,
/// or none (the launch then, which ran on the unwritten rows).
fn padding_unwritten<'a>(
    rows: usize,
    entries: &[&'a TraceEntry],
) -> Option<(String, Option<&'a TraceEntry>)> {
    let bucket = graph_buffers::bucket_for(rows)?;
    if bucket <= rows {
        return None;
    }
    let row = (WIDTH * 4) as u64;
    let padding = (bucket - rows) as u64 * row;
    let whole = bucket as u64 * row;
    let before_launch: Vec<&TraceEntry> = entries
        .iter()
        .take_while(|e| e.op != OpKind::GraphLaunch)
        .copied()
        .collect();
    let is_fill = |e: &TraceEntry| matches!(e.op, OpKind::Launch | OpKind::Memset);
    let is_write = |e: &TraceEntry| {
        matches!(
            e.op,
            OpKind::Launch | OpKind::Memset | OpKind::CopyDeviceToDevice
        )
    };
    if let Some(fill) = before_launch
        .iter()
        .filter(|e| is_fill(e))
        .find(|e| e.bytes > padding && e.bytes < whole && e.bytes % row == 0)
    {
        let filled = fill.bytes / row;
        let over = filled - (bucket - rows) as u64;
        return Some((
            format!(
                "the padding fill before the graph launch wrote {filled} rows where the padding has {}: it began inside the batch, at row {}, and zeroed the batch's last {over} row(s); the padding is rows {rows}..{bucket}, from right after the batch's last row",
                bucket - rows,
                bucket as u64 - filled
            ),
            Some(*fill),
        ));
    }
    let batch = rows as u64 * row;
    let copy_in = before_launch.iter().position(|e| {
        e.bytes == batch && matches!(e.op, OpKind::CopyDeviceToDevice | OpKind::CopyHostToDevice)
    });
    if let Some(i) = copy_in
        && let Some(fill) = before_launch[i + 1..]
            .iter()
            .find(|e| is_fill(e) && e.bytes == whole)
    {
        return Some((
            format!(
                "the whole bucket ({bucket} rows) was filled after the batch was copied in: the fill overwrote the batch's {rows} rows, so the graph computed from zeros; fill only the padding rows {rows}..{bucket} (or the whole bucket before the copy in)"
            ),
            Some(*fill),
        ));
    }
    let written = before_launch
        .iter()
        .filter(|e| is_write(e))
        .any(|e| e.bytes == padding || e.bytes == whole);
    (!written).then(|| {
        (
            format!(
                "nothing wrote the padding rows {rows}..{bucket} of the static input ({padding} bytes) before the graph launch: the graph computes every row of its bucket, so fill the padding (with zeros, say) after copying the batch in, or those rows hold an earlier, larger batch's data"
            ),
            None,
        )
    })
}

/// The calls, one line each, repeats folded: `Launch affine_f32 at … (× 64)`.
fn listing(entries: &[&TraceEntry]) -> String {
    let mut lines: Vec<(String, usize)> = Vec::new();
    for e in entries {
        let line = format!("{:?} {} at {}", e.op, e.name, e.site);
        match lines.last_mut() {
            Some((last, n)) if *last == line => *n += 1,
            _ => lines.push((line, 1)),
        }
    }
    lines
        .into_iter()
        .map(|(line, n)| {
            if n > 1 {
                format!("{line} (× {n})")
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
