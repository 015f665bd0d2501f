//! The outputs against each chunk's layer: eight chunks, one, and none.

use super::workload::{Bench, CHUNK_LEN, CHUNKS, expected};
use judge_harness::bridge::unless_it_panics;
use judge_harness::{Ctx, Failure};

const SECTION: &str = "streams-and-events.md#copies-that-overlap-compute";

pub(super) fn outputs_are_each_chunks_layer(ctx: &Ctx) -> Result<(), Failure> {
    let bench = Bench::open(ctx)?;
    let (results, _, _) = bench.run()?;
    compare(&results, CHUNKS, || zeros_cause(ctx, &bench))
}

/// Why an output came out all zeros, from the run of `bench`: the race
/// behind it, named by the race check's words (a copy-out not ordered after
/// its layer, the CPU's read before the copy-outs were done, …); with no
/// race, the copy-outs the trace shows.
fn zeros_cause(ctx: &Ctx, bench: &Bench) -> Result<String, Failure> {
    if let Some(race) = bench.device.races().first() {
        return Ok(format!(
            "all zeros, and the race checker says why: {}",
            super::races::cause(ctx, bench, race)?
        ));
    }
    let copy_outs = bench
        .device
        .trace()
        .entries
        .iter()
        .filter(|e| e.op == gpu::OpKind::CopyDeviceToHost)
        .count();
    let chunks = bench.chunks.len();
    Ok(if copy_outs < chunks {
        format!(
            "all zeros, and no race: {copy_outs} copy-out(s) for {chunks} chunk(s), so some output was never written. Copy each chunk's result into `outputs[k]` on `copy_out`"
        )
    } else {
        "all zeros, and no race: every copy-out was ordered, so one copied a result buffer the layer had not written (chunk k's layer writes result buffer `k % 2`, and its copy-out reads that same buffer)".to_string()
    })
}

pub(super) fn one_chunk_and_none(ctx: &Ctx) -> Result<(), Failure> {
    for count in [1, 0] {
        let bench = Bench::open_on(ctx.device()?, count)?;
        let (results, _, _) = unless_it_panics(|| bench.run()).map_err(|panic| {
            Failure::new(
                format!("with {count} chunk(s), {count} outputs, one per chunk"),
                format!("it panicked: {panic}"),
            )
            .detail(format!(
                "a run may have one chunk, or none (the end of a stream of requests): with none there is no first chunk to size the buffers from and nothing to wait for, and `run` returns no output; size each buffer from the chunk it holds, inside the loop; see {SECTION}"
            ))
        })??;
        compare(&results, count, || zeros_cause(ctx, &bench)).map_err(|mut f| {
            f.expected = format!("with {count} chunk(s), {}", f.expected);
            f
        })?;
    }
    Ok(())
}

/// Compares `results` with the layers of the first `count` chunks, naming
/// the first chunk that differs and whose data it holds instead (`zeros`:
/// why an output is all zeros).
fn compare(
    results: &[Vec<f32>],
    count: usize,
    zeros: impl FnOnce() -> Result<String, Failure>,
) -> Result<(), Failure> {
    if results.len() != count {
        return Err(Failure::new(
            format!("{count} outputs, one per chunk"),
            format!("{} outputs", results.len()),
        )
        .detail(format!(
            "return the contents of `outputs[k]` for each chunk `k`, and only those; see {SECTION}"
        )));
    }
    let Some(k) = (0..count).find(|&k| results[k] != expected(k, CHUNK_LEN)) else {
        return Ok(());
    };
    let got = &results[k];
    let want = expected(k, CHUNK_LEN);
    let j = (0..got.len().min(want.len()))
        .find(|&j| got[j] != want[j])
        .unwrap_or(0);
    let whose = (0..count.max(CHUNKS)).find(|&o| o != k && *got == expected(o, CHUNK_LEN));
    let why = if got.len() != want.len() {
        format!("it has {} elements, not {}", got.len(), want.len())
    } else if got.iter().all(|&x| x == 0.0) {
        zeros()?
    } else if let Some(o) = whose {
        format!(
            "that is chunk {o}'s result: a buffer shared by chunks {k} and {o} was refilled before the stage that read it was done (a missing or wrong `wait_event` before the refill)"
        )
    } else {
        format!(
            "element {j} is {} instead of {}: a stage read a buffer that another stage was still writing",
            got[j], want[j]
        )
    };
    Err(Failure::new(
        format!("chunk {k}'s output, 2 x + 1 of chunk {k}"),
        format!("element {j} is {}", got.get(j).copied().unwrap_or(f32::NAN)),
    )
    .detail(format!("{why}; see {SECTION}")))
}
