//! Loads other than the eight equal batches: none at all, and batches of
//! different lengths (a data loader's last batch is shorter), each with its
//! own sum. A loop written for the one load the other checks run sizes its
//! buffers by the first batch, indexes a first batch that is not there, or
//! counts to `len - 1` and underflows.

use super::workload::{Bench, MODEL};
use judge_harness::bridge::unless_it_panics;
use judge_harness::{Ctx, Failure};

/// Where the rules are.
const SECTION: &str = "see streams-and-events.md#copies-that-overlap-compute";

/// The lengths of the uneven load, in elements: the second longer than the
/// first, the last a few elements only.
const UNEVEN: [usize; 3] = [1 << 16, (1 << 17) + 7, 5];

/// Element `j` of uneven batch `b`: 1 every `b + 3` elements, else 0.
fn value(b: usize, j: usize) -> f32 {
    if j.is_multiple_of(b + 3) { 1.0 } else { 0.0 }
}

/// The sum of the first `len` elements of uneven batch `b`.
fn sum(b: usize, len: usize) -> f32 {
    len.div_ceil(b + 3) as f32
}

pub(super) fn any_load_gets_every_batchs_sum(ctx: &Ctx) -> Result<(), Failure> {
    let bench = Bench::open_with(ctx, &[])?;
    let outputs = unless_it_panics(|| {
        prefetch::run(&MODEL, &bench.batches, &bench.copy, &bench.compute)
    })
    .map_err(|panic| {
        Failure::new("`run` to succeed on no batch at all", format!("it panicked: {panic}")).detail(format!(
            "an empty list of batches is a load too (the end of an epoch): there is no first batch to prefetch, so take it only when there is one (`batches.first()`), and the loop runs no step; {SECTION}"
        ))
    })?
    .map_err(|e| Failure::new("`run` to succeed on no batch at all", e.to_string()))?;
    if !outputs.is_empty() {
        return Err(Failure::new(
            "no output for no batch",
            format!("{} output(s): {outputs:?}", outputs.len()),
        )
        .detail(format!(
            "an empty list of batches is a load too (the end of an epoch): the outputs are as many as the batches, so allocate `batches.len()` of them, none here; {SECTION}"
        )));
    }
    uneven(ctx)
}

/// Batches of [`UNEVEN`] lengths.
fn uneven(ctx: &Ctx) -> Result<(), Failure> {
    let data: Vec<Vec<f32>> = UNEVEN
        .iter()
        .enumerate()
        .map(|(b, &len)| (0..len).map(|j| value(b, j)).collect())
        .collect();
    let bench = Bench::open_with(ctx, &data)?;
    let expected: Vec<f32> = UNEVEN.iter().enumerate().map(|(b, &l)| sum(b, l)).collect();
    let shown = format!("batches of {UNEVEN:?} elements, outputs {expected:?}");
    let outputs = prefetch::run(&MODEL, &bench.batches, &bench.copy, &bench.compute)
        .map_err(|e| {
            Failure::new(format!("`run` to succeed on {shown}"), e.to_string()).detail(format!(
                "batches need not be of one length: each batch's buffer is as long as that batch (`host.len()`), not the first one; {SECTION}"
            ))
        })?;
    let Some(i) = (0..UNEVEN.len()).find(|&i| outputs.get(i) != Some(&expected[i])) else {
        return match outputs.len() {
            n if n == UNEVEN.len() => Ok(()),
            n => Err(Failure::new(shown, format!("{n} outputs"))),
        };
    };
    let got = outputs.get(i).copied();
    let first = UNEVEN[0];
    let why = match got {
        Some(g) if g == sum(i, first.min(UNEVEN[i])) => format!(
            "that is the sum of batch {i}'s first {} elements: its buffer was sized by the first batch ({first} elements), so the rest of it was never copied or summed; each batch's buffer is as long as that batch (`host.len()`)",
            first.min(UNEVEN[i])
        ),
        Some(_) => "each batch is copied whole into a buffer of its own length, and its step sums that buffer".into(),
        None => format!("{} outputs for {} batches", outputs.len(), UNEVEN.len()),
    };
    Err(Failure::new(
        format!("batch {i}'s output, its sum {}, of {shown}", expected[i]),
        got.map_or_else(|| "none".into(), |g| g.to_string()),
    )
    .detail(format!("{why}; {SECTION}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uneven_sums_tell_a_cut_batch_apart() {
        assert!(UNEVEN[1] > UNEVEN[0] && UNEVEN[2] < UNEVEN[0]);
        // Cut to the first batch's length, the longer batch sums to less.
        assert_ne!(sum(1, UNEVEN[1]), sum(1, UNEVEN[0]));
        let sums: Vec<f32> = UNEVEN.iter().enumerate().map(|(b, &l)| sum(b, l)).collect();
        assert_eq!(
            sums,
            [21846.0, 32770.0, 1.0],
            "one element in three, four, five"
        );
    }
}
