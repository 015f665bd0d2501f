//! Every output of a long decode equals the eager model's: the layers
//! launched one by one by the check itself, over the same inputs, on the
//! same GPU.

use super::support::{batch, batch_sizes, eager, reference, runner};
use gpu::{OpKind, TraceEntry};
use graph_buffers::{Model, WIDTH};
use judge_harness::ordering::missed_order;
use judge_harness::{Ctx, Failure};

/// What the output buffer holds before the decode: a value no step makes.
const UNWRITTEN: f32 = -12345.0;

/// One step of the run: its rows, where its rows start in the run, and what
/// it must produce (filled in from the eager run).
struct Step {
    rows: usize,
    first_row: usize,
    input: Vec<f32>,
    want: Vec<f32>,
}

pub(super) fn outputs_equal_eager(ctx: &Ctx) -> Result<(), Failure> {
    let device = ctx.device()?;
    let stream = device.new_stream()?;
    let model = Model::new();
    let mut steps = plan();
    let total = steps.iter().map(|s| s.rows).sum::<usize>() * WIDTH;
    let host_in: Vec<f32> = steps.iter().flat_map(|s| s.input.iter().copied()).collect();
    let input = stream.alloc_zeros::<f32>(total)?;
    let output = stream.alloc_zeros::<f32>(total)?;
    stream.copy_from_host(&host_in, &input)?;
    stream.fill(&output, UNWRITTEN)?;
    let mut runner = runner(&stream, &model)?;
    let range = |s: &Step| s.first_row * WIDTH..(s.first_row + s.rows) * WIDTH;
    let xs: Vec<_> = steps.iter().map(|s| input.slice(range(s))).collect();
    let ys: Vec<_> = steps.iter().map(|s| output.slice(range(s))).collect();
    let mark = device.trace_mark();
    runner.decode(&xs, &ys).map_err(|e| {
        Failure::new(
            format!("decode of {} batches to succeed", steps.len()),
            e.to_string(),
        )
    })?;
    let got = stream.to_vec(&output)?;
    ctx.save_trace("decode", &device);
    let want = eager(&stream, &model, &input)?;
    for step in &mut steps {
        step.want = want[step.first_row * WIDTH..(step.first_row + step.rows) * WIDTH].to_vec();
    }
    let races: Vec<String> = device.races().iter().map(ToString::to_string).collect();
    // What the trace says of the first race's missing order, when an event
    // or a wait was tried and misplaced.
    let missed = device
        .races()
        .first()
        .and_then(|race| missed_order(&device.trace().entries, race))
        .map(|why| format!(": {why}"))
        .unwrap_or_default();
    let wrong: Vec<usize> = (0..steps.len())
        .filter(|&k| got[range(&steps[k])] != steps[k].want[..])
        .collect();
    if let Some(&k) = wrong.first() {
        let sizes: Vec<usize> = steps.iter().map(|s| s.rows).collect();
        let trace = device.trace();
        let launched_on = trace
            .since(mark)
            .iter()
            .find(|e| e.op == OpKind::GraphLaunch)
            .and_then(|e| e.stream);
        let why = if one_step_late(&steps, &wrong, &got) {
            one_step_late_cause(trace.since(mark))
        } else if one_step_early(&steps, &wrong, &got) {
            "each step's rows are the results of the step after it (one step early): its rows were copied out of the static output only after the next batch's graph had been launched, and that replay had overwritten them. Copy each step's rows out right after its own launch, before the next one is queued".to_string()
        } else if let Some(other) = launched_on.filter(|&s| s != stream.id()) {
            format!(
                "the graphs replay on stream {other}, the stream they were captured on, while `decode` copies each batch in and its rows out on the runner's stream {}, and nothing orders the two: a replay may run before its batch is copied in, or after the next one is. Capture the graphs on the runner's stream, so that every step is in one stream's order",
                stream.id()
            )
        } else if let Some(late) =
            copied_out_after_the_last_launch(&steps, k, &got, trace.since(mark))
        {
            late
        } else {
            let calls = step_calls(trace.since(mark), steps.len(), k);
            diagnose(&model, &steps, k, &got[range(&steps[k])], calls.as_deref())
        };
        let why = match races.first() {
            Some(race) => format!(
                "{why}; the race checker found {} race(s) between the streams, which is what made it wrong; the first: {}{missed}",
                races.len(),
                race.lines().next().unwrap_or_default()
            ),
            None => why,
        };
        return Err(Failure::new(
            format!("every step's output rows to equal the eager model's (batch sizes {sizes:?})"),
            format!(
                "{} of {} steps are wrong; the first, step {k} ({} rows): {}",
                wrong.len(),
                steps.len(),
                steps[k].rows,
                why
            ),
        )
        .detail(format!(
            "the decode began at trace entry {mark}; `judge run 103 --timeline steps.svg` draws steady-state steps"
        )));
    }
    if !races.is_empty() {
        return Err(Failure::new(
            "no race between the streams (the warm-up's side stream is ordered with the runner's stream by events)",
            format!("{} race(s){missed}", races.len()),
        )
        .detail(races.join("\n")));
    }
    Ok(())
}

/// Why step `k`'s rows are wrong when they equal the last step's and the
/// decode's calls (`entries`) queued every copy out of the static output
/// after the last graph launch: by then every replay but the last had
/// been overwritten.
fn copied_out_after_the_last_launch(
    steps: &[Step],
    k: usize,
    got: &[f32],
    entries: &[gpu::TraceEntry],
) -> Option<String> {
    let last = steps.last()?;
    let step = &steps[k];
    let start = step.first_row * WIDTH;
    let rows = &got[start..start + step.rows * WIDTH];
    if k + 1 == steps.len() || rows != &last.want[..rows.len()] {
        return None;
    }
    let launch = entries.iter().rposition(|e| e.op == OpKind::GraphLaunch)?;
    let launches = entries
        .iter()
        .filter(|e| e.op == OpKind::GraphLaunch)
        .count();
    // The decode's calls end where the check reads the outputs back.
    let after = entries[launch + 1..]
        .iter()
        .take_while(|e| e.blocking.is_none())
        .filter(|e| e.op == OpKind::CopyDeviceToDevice)
        .count();
    (launches == steps.len() && after >= steps.len()).then(|| {
        format!(
            "its rows equal the first {} rows of the last step's output: every result equals the last. \
             All {after} copies out of the static output were queued after the last of the {launches} graph launches \
             (line {}), and each replay overwrites the static output, so by then it held only the last step's rows. \
             Copy each step's rows out right after its own launch, before the next launch is queued",
            step.rows, entries[launch].site.line
        )
    })
}

/// Why every step's rows are the step before's, from the order of the
/// decode's calls (`entries`): a copy out queued before the launch that
/// computes it leaves the batch's copy in before the first launch; a copy in
/// queued after its launch leaves no copy at all before the first launch.
fn one_step_late_cause(entries: &[TraceEntry]) -> String {
    let first = entries.iter().position(|e| e.op == OpKind::GraphLaunch);
    let copies_before = first.map_or(0, |at| {
        entries[..at]
            .iter()
            .filter(|e| e.op == OpKind::CopyDeviceToDevice)
            .count()
    });
    match first {
        Some(at) if copies_before == 0 => format!(
            "each step's rows are the results of the step before it (one step late): each batch was copied into the static input after its graph launch (the first launch, line {}, came before any copy), so every replay computed the batch copied in before it, and step 0's the static input's first contents. Copy the batch in and pad it, then launch, then copy the rows out",
            entries[at].site.line
        ),
        _ => "each step's rows are the results of the step before it (one step late): the output was copied out of the static output before the graph launch that computes it. Copy the real rows out after the launch, in stream order".to_string(),
    }
}

/// Whether every wrong step but the last holds, in the rows it shares with
/// the step after it, that step's results: outputs copied out after the
/// next replay.
fn one_step_early(steps: &[Step], wrong: &[usize], got: &[f32]) -> bool {
    let early = |&k: &usize| {
        k + 1 < steps.len() && {
            let shared = steps[k].rows.min(steps[k + 1].rows) * WIDTH;
            let start = steps[k].first_row * WIDTH;
            got[start..start + shared] == steps[k + 1].want[..shared]
        }
    };
    let earlier: Vec<&usize> = wrong.iter().filter(|&&k| k + 1 < steps.len()).collect();
    earlier.len() >= 3 && earlier.into_iter().all(early)
}

/// Whether every wrong step after the first holds, in the rows it shares
/// with the step before it, that step's results: outputs copied out a
/// replay too early.
fn one_step_late(steps: &[Step], wrong: &[usize], got: &[f32]) -> bool {
    let late = |&k: &usize| {
        k > 0 && {
            let shared = steps[k].rows.min(steps[k - 1].rows) * WIDTH;
            let start = steps[k].first_row * WIDTH;
            got[start..start + shared] == steps[k - 1].want[..shared]
        }
    };
    let later: Vec<&usize> = wrong.iter().filter(|&&k| k > 0).collect();
    later.len() >= 3 && later.into_iter().all(late)
}

fn plan() -> Vec<Step> {
    let mut first_row = 0;
    batch_sizes()
        .into_iter()
        .enumerate()
        .map(|(k, rows)| {
            let step = Step {
                rows,
                first_row,
                input: batch(k, rows),
                want: Vec::new(),
            };
            first_row += rows;
            step
        })
        .collect()
}

/// The calls the decode (`entries`, from its start) queued for step `k`
/// before its graph launch, back to the launch of step `k - 1`, when the
/// decode launched one graph per step of its `steps`.
fn step_calls(entries: &[TraceEntry], steps: usize, k: usize) -> Option<Vec<&TraceEntry>> {
    let launches: Vec<usize> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.op == OpKind::GraphLaunch)
        .map(|(i, _)| i)
        .collect();
    if launches.len() != steps {
        return None;
    }
    let from = if k == 0 { 0 } else { launches[k - 1] + 1 };
    Some(entries[from..launches[k]].iter().collect())
}

/// Why the last rows of a batch of `rows` came out as the model of zeros
/// when its first `computed` rows are right, read from the step's calls
/// before its launch (`calls`): a padding fill that began inside the batch,
/// a bucket smaller than the batch, or a right bucket and padding with
/// another bucket's graph launched.
fn zero_rows_cause(rows: usize, computed: usize, calls: &[&TraceEntry]) -> Option<String> {
    let bucket = graph_buffers::bucket_for(rows)?;
    if bucket < rows {
        return Some(format!(
            "rows 0..{computed} are right and rows {computed}..{rows} are left from an earlier replay's padding: `bucket_for({rows})` is {bucket}, a bucket too small, so the graph computed only {bucket} of the batch's rows; pad up to the smallest bucket that holds the batch, never down"
        ));
    }
    let row = (WIDTH * 4) as u64;
    let fills: Vec<u64> = calls
        .iter()
        .filter(|e| matches!(e.op, OpKind::Launch | OpKind::Memset) && e.bytes % row == 0)
        .map(|e| e.bytes / row)
        .collect();
    let padding = (bucket - rows) as u64;
    if fills.iter().any(|&f| f > padding && f < bucket as u64) {
        return Some(format!(
            "rows 0..{computed} are right and rows {computed}..{rows} hold the model's output for rows of zeros: the padding fill began inside the batch and zeroed its last rows; the padding is rows {rows}..{bucket}, from right after the batch's last row"
        ));
    }
    (padding == 0 || fills.contains(&padding)).then(|| {
        format!(
            "rows 0..{computed} are right and rows {computed}..{rows} hold the model's output for rows of zeros: the batch was copied in and padded to its bucket of {bucket} rows, as `bucket_for` says, but the graph launched computes only {computed} rows, so it is another bucket's graph (its rows past {computed} are left from an earlier replay's padding). Launch the graph captured for the batch's own bucket: index the graphs by the bucket's position in `BUCKETS`"
        )
    })
}

/// Why step `k`'s output `got` is wrong, in terms of the static buffers
/// (and of the step's calls before its launch, `calls`, when known).
fn diagnose(
    model: &Model,
    steps: &[Step],
    k: usize,
    got: &[f32],
    calls: Option<&[&TraceEntry]>,
) -> String {
    let step = &steps[k];
    let rows: Vec<&[f32]> = got.chunks(WIDTH).collect();
    let want: Vec<&[f32]> = step.want.chunks(WIDTH).collect();
    let last = steps.last().expect("a run has steps");
    if let Some(r) = rows
        .iter()
        .position(|row| row.iter().all(|&v| v == UNWRITTEN))
    {
        return format!(
            "row {r} was never written: the real rows must be copied out of the static output into the step's output"
        );
    }
    if k + 1 < steps.len() && got == &last.want[..got.len()] {
        return format!(
            "its rows equal the first {} rows of the last step's output: every result equals the last. \
             The static output was kept (a view of it) instead of copied out before the next replay overwrote it",
            step.rows
        );
    }
    let first_bad = (0..rows.len())
        .find(|&r| rows[r] != want[r])
        .expect("a wrong row");
    let zero_row = reference(model, &[0.0; WIDTH]);
    if first_bad > 0 && rows[first_bad..].iter().all(|row| *row == &zero_row[..]) {
        if let Some(why) = calls.and_then(|calls| zero_rows_cause(step.rows, first_bad, calls)) {
            return why;
        }
        return format!(
            "rows 0..{first_bad} are right and rows {first_bad}..{} hold the model's output for rows of zeros: either \
             the padding fill began inside the batch and zeroed its last rows (the padding begins at row {}, right after \
             the batch), or the graph launched computes only {first_bad} rows (a bucket too small, or another bucket's \
             graph) and those rows are left from an earlier replay's padding",
            step.rows, step.rows
        );
    }
    if first_bad > 0 {
        return format!(
            "rows 0..{first_bad} are right and rows {first_bad}..{} wrong: the graph launched computed only {first_bad} rows, \
             too few for a batch of {}; launch the graph captured for the smallest bucket that holds the batch (a bucket \
             too small, or another bucket's graph, leaves the last rows uncomputed)",
            step.rows, step.rows
        );
    }
    let earlier = |row: &[f32]| {
        steps[..k]
            .iter()
            .any(|s| s.want.chunks(WIDTH).any(|w| w == row))
    };
    if rows.iter().any(|row| *row == &zero_row[..] || earlier(row)) {
        return "stale data replayed: the graph computed from what the static input held before, not from this batch. \
                Copy each batch into the static input before launching the graph, and write nothing over its rows after"
            .to_string();
    }
    let c = (0..WIDTH)
        .find(|&c| rows[0][c] != want[0][c])
        .expect("a wrong element");
    format!(
        "row 0, element {c}: expected {}, got {}",
        want[0][c], rows[0][c]
    )
}
