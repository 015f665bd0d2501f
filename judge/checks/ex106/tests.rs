//! The suite's own tests: the solution passes every check, and the figures
//! of the overlap check (printed with `--nocapture`; the CUDA version is
//! ignored without a GPU).

use super::overlap::Spans;
use super::workload::{BATCHES, Bench, between};
use judge_harness::Ctx;

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(106);
}

#[test]
fn every_batch_has_its_own_sum() {
    let sums: Vec<f32> = (0..BATCHES).map(super::workload::expected_sum).collect();
    let mut unique = sums.clone();
    unique.dedup();
    assert_eq!(unique.len(), BATCHES, "{sums:?}");
}

fn overlap_figures(backend: gpu::Backend) {
    let ctx = Ctx::new(backend);
    let bench = Bench::open_on(ctx.timed_device().unwrap()).unwrap();
    bench.run().unwrap();
    bench.device.synchronize().unwrap();
    bench.device.clear_trace();
    let started = bench.device.now();
    let (_, before, after) = bench.run().unwrap();
    let wall = (bench.device.now() - started).as_secs_f64() * 1e3;
    let trace = bench.device.trace();
    let spans = Spans::of(&between(&trace, before, after)).unwrap();
    let ((copies, steps), limit, took) = (spans.totals(), spans.limit(), spans.span());
    println!(
        "{backend:?}: the solution ran {BATCHES} batches in {took:.3} ms on the GPU ({wall:.3} ms on the CPU's clock, the call's round trip and the read-back included); in the run the copies took {copies:.3} ms and the steps {steps:.3} ms of GPU time; the limit {limit:.3} ms; ratio {:.3} (one after the other: {:.3})",
        took / limit,
        (copies + steps) / limit
    );
    assert_eq!((spans.copies.len(), spans.steps.len()), (BATCHES, BATCHES));
    assert!(bench.device.races().is_empty());
    assert!(took <= limit * 1.10);
}

#[test]
fn the_solution_overlaps_on_the_virtual_gpu() {
    overlap_figures(gpu::Backend::Virtual);
}

#[test]
#[ignore = "needs a CUDA device"]
fn the_solution_overlaps_on_the_gpu() {
    overlap_figures(gpu::Backend::Cuda);
}
