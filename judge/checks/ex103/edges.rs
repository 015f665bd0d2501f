//! `decode` over lists of batches other than the long run: none at all,
//! one call whose batches need different buckets (the first one small), and
//! batches of no row or more than the largest bucket, which are refused.

use super::support::{batch, eager, runner};
use graph_buffers::{Error, MAX_ROWS, Model, Runner, WIDTH};
use judge_harness::bridge::unless_it_panics;
use judge_harness::{Ctx, Failure};

/// Where the rules are.
const SECTION: &str = "see cuda-graphs.md#one-graph-per-bucket";

/// The rows of the batches of one call: a small first batch, then the
/// largest, then one in between.
const MIXED: [usize; 3] = [1, MAX_ROWS, 3];

pub(super) fn decode_takes_any_list_of_batches(ctx: &Ctx) -> Result<(), Failure> {
    let device = ctx.device()?;
    let stream = device.new_stream()?;
    let model = Model::new();
    let mut runner = runner(&stream, &model)?;
    let asked = "`decode` of no batch at all to succeed: zero steps";
    let rule = "an empty list of batches is zero steps: nothing to queue, and `Ok(())`";
    unless_it_panics(|| runner.decode(&[], &[]))
        .map_err(|panic| {
            Failure::new(asked, format!("it panicked: {panic}")).detail(format!(
                "{rule}; there is no first batch to take a bucket or a row count from, so look at each batch only inside the loop over them; {SECTION}"
            ))
        })?
        .map_err(|e| Failure::new(asked, e.to_string()).detail(format!("{rule}; {SECTION}")))?;
    mixed(&stream, &model, &mut runner)?;
    for rows in [0, MAX_ROWS + 1] {
        refused(&stream, &mut runner, rows)?;
    }
    Ok(())
}

/// One call over [`MIXED`]: every step's rows equal the eager model's.
fn mixed(stream: &gpu::Stream, model: &Model, runner: &mut Runner) -> Result<(), Failure> {
    let host: Vec<f32> = MIXED
        .iter()
        .enumerate()
        .flat_map(|(s, &r)| batch(s, r))
        .collect();
    let input = stream.alloc_zeros::<f32>(host.len())?;
    let output = stream.alloc_zeros::<f32>(host.len())?;
    stream.copy_from_host(&host, &input)?;
    let starts: Vec<usize> = MIXED
        .iter()
        .scan(0, |at, &r| {
            let s = *at;
            *at += r * WIDTH;
            Some(s)
        })
        .collect();
    let range = |k: usize| starts[k]..starts[k] + MIXED[k] * WIDTH;
    let xs: Vec<_> = (0..MIXED.len()).map(|k| input.slice(range(k))).collect();
    let ys: Vec<_> = (0..MIXED.len()).map(|k| output.slice(range(k))).collect();
    let asked =
        format!("one `decode` of batches of {MIXED:?} rows, each step's rows the eager model's");
    runner
        .decode(&xs, &ys)
        .map_err(|e| Failure::new(asked.clone(), e.to_string()))?;
    let got = stream.to_vec(&output)?;
    let want = eager(stream, model, &input)?;
    let Some(k) = (0..MIXED.len()).find(|&k| got[range(k)] != want[range(k)]) else {
        return Ok(());
    };
    let row_right = |row: usize| {
        let at = starts[k] + row * WIDTH;
        got[at..at + WIDTH] == want[at..at + WIDTH]
    };
    // The judge's own bucket of the first batch, not the learner's `bucket_for`.
    let first_bucket = MIXED[0].next_power_of_two();
    let why = match (0..MIXED[k]).find(|&r| !row_right(r)) {
        Some(r) if r == first_bucket && (0..r).all(row_right) => format!(
            "its first {r} rows are right and the rest are not: {r} rows is the bucket of the call's first batch ({} row(s)), so every step of the call replayed that batch's graph; pick each step's bucket from its own batch, inside the loop",
            MIXED[0]
        ),
        Some(r) => format!(
            "row {r} of it differs from the eager model's; each step picks the bucket of its own batch, copies that batch in, pads it and copies its rows out"
        ),
        None => "its rows differ from the eager model's".into(),
    };
    Err(Failure::new(
        asked,
        format!("step {k} ({} rows) is wrong: {why}", MIXED[k]),
    )
    .detail(SECTION))
}

/// A batch of `rows` rows (0, or more than the largest bucket) is refused
/// with [`Error::BatchSize`], and nothing is queued for it.
fn refused(stream: &gpu::Stream, runner: &mut Runner, rows: usize) -> Result<(), Failure> {
    let len = (rows * WIDTH).max(1);
    let (x, y) = (
        stream.alloc_zeros::<f32>(len)?,
        stream.alloc_zeros::<f32>(len)?,
    );
    let (x, y) = (x.slice(0..rows * WIDTH), y.slice(0..rows * WIDTH));
    let asked =
        format!("a batch of {rows} rows refused with `Error::BatchSize {{ rows: {rows} }}`");
    match runner.decode(&[x], &[y]) {
        Err(Error::BatchSize { rows: said }) if said == rows => Ok(()),
        Ok(()) => Err(Failure::new(asked, "`decode` returned `Ok(())`").detail(format!(
            "a step needs 1 to {MAX_ROWS} rows: no graph was captured for {rows} (`bucket_for({rows})` is `None`); refuse the batch with `Error::BatchSize` instead of skipping it or replaying another bucket's graph; {SECTION}"
        ))),
        Err(other) => Err(Failure::new(asked, format!("`decode` failed with: {other}")).detail(format!(
            "the batch's size is what is wrong, and `Error::BatchSize` says so; {SECTION}"
        ))),
    }
}
