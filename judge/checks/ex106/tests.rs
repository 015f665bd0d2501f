//! The suite's own tests: the solution passes every check, and the figures
//! of the overlap check (printed with `--nocapture`; the CUDA version is
//! ignored without a GPU).

use super::workload::{BATCHES, Bench, ms};
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
    let bench = Bench::open(&Ctx::new(backend)).unwrap();
    let copy = super::overlap::copy_alone_ms(&bench).unwrap();
    let step = super::overlap::step_alone_ms(&bench).unwrap();
    bench.device.synchronize().unwrap();
    let started = bench.device.now();
    bench.run().unwrap();
    let took = ms(bench.device.now() - started);
    let n = BATCHES as f64;
    let limit = (n * copy).max(n * step) + copy.min(step);
    println!(
        "{backend:?}: the solution ran {BATCHES} batches in {took:.3} ms; a copy alone {copy:.3} ms, a step alone {step:.3} ms; the limit {limit:.3} ms; ratio {:.3} (one after the other: {:.3})",
        took / limit,
        n * (copy + step) / limit
    );
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
