//! The suite's own tests: the solution passes every check; each known-wrong
//! `run` of `wrong.rs` fails the check that names its cause, with the
//! message in a snapshot (`snapshots/NAME.snap`); and the figures of the
//! overlap check (printed with `--nocapture`; the CUDA version is ignored
//! without a GPU).

use super::overlap::Stages;
use super::workload::{Bench, CHUNKS, Run, between};
use super::wrong::*;
use crate::tests::StandIn;
use judge_harness::Ctx;
use std::cell::Cell;

thread_local! {
    /// The `run` the checks call instead of the solution's.
    static REPLACEMENT: Cell<Option<Run>> = const { Cell::new(None) };
}

/// What the suite's tests put in place of the solution's `Run`.
static STAND_IN: StandIn<Run> = StandIn::new(117, &REPLACEMENT);

/// The `run` a test put in place of the solution's, if any.
pub(super) fn replacement() -> Option<Run> {
    STAND_IN.get()
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(117);
}

#[test]
fn every_chunk_has_its_own_output() {
    let outputs: Vec<Vec<f32>> = (0..CHUNKS)
        .map(|k| super::workload::expected(k, 64))
        .collect();
    for (k, o) in outputs.iter().enumerate() {
        assert_eq!(outputs.iter().filter(|p| *p == o).count(), 1, "chunk {k}");
    }
}

#[test]
fn the_starter_is_right_and_takes_turns() {
    assert!(
        STAND_IN
            .run(starter, "outputs_are_each_chunks_layer")
            .passed()
    );
    assert!(STAND_IN.run(starter, "no_race_between_the_stages").passed());
    STAND_IN.fails(starter, "the_stages_overlap", "starter");
}

#[test]
fn a_buffer_refilled_too_early_is_named_with_its_chunk() {
    STAND_IN.fails(
        no_input_refill_wait,
        "no_race_between_the_stages",
        "no_input_refill_wait",
    );
    STAND_IN.fails(
        no_result_refill_wait,
        "no_race_between_the_stages",
        "no_result_refill_wait",
    );
}

#[test]
fn a_missing_event_between_stages_is_named() {
    STAND_IN.fails(
        no_copy_in_event,
        "no_race_between_the_stages",
        "no_copy_in_event",
    );
    STAND_IN.fails(
        no_layer_event,
        "no_race_between_the_stages",
        "no_layer_event",
    );
}

#[test]
fn a_wait_for_the_wrong_event_or_on_the_wrong_stream_is_named() {
    for (new, snapshot) in [
        (
            waits_on_the_copy_in_stream as Run,
            "waits_on_the_copy_in_stream",
        ),
        (
            copy_out_waits_for_the_copy_in,
            "copy_out_waits_for_the_copy_in",
        ),
        (input_freed_by_the_copy_in, "input_freed_by_the_copy_in"),
        (result_freed_by_the_layer, "result_freed_by_the_layer"),
        (results_on_copy_out, "results_on_copy_out"),
    ] {
        STAND_IN.fails(new, "no_race_between_the_stages", snapshot);
    }
}

#[test]
fn an_output_of_zeros_is_told_by_the_race_behind_it() {
    STAND_IN.fails(
        no_layer_event,
        "outputs_are_each_chunks_layer",
        "no_layer_event_zeros",
    );
    STAND_IN.fails(
        waits_for_the_wrong_stream,
        "outputs_are_each_chunks_layer",
        "waits_for_the_wrong_stream_zeros",
    );
}

#[test]
fn the_final_wait_for_the_wrong_stream_is_a_race_with_the_cpu() {
    STAND_IN.fails(
        waits_for_the_wrong_stream,
        "no_race_between_the_stages",
        "waits_for_the_wrong_stream",
    );
}

#[test]
fn each_cause_of_serialized_stages_is_named() {
    STAND_IN.fails(
        waits_for_the_latest,
        "the_stages_overlap",
        "waits_for_the_latest",
    );
    STAND_IN.fails(
        one_buffer_per_stage,
        "the_stages_overlap",
        "one_buffer_per_stage",
    );
    STAND_IN.fails(
        synchronizes_in_the_loop,
        "the_stages_overlap",
        "synchronizes_in_the_loop",
    );
}

#[test]
fn a_run_of_no_chunk_is_a_load_of_its_own() {
    assert!(
        STAND_IN
            .run(sized_by_the_first_chunk, "outputs_are_each_chunks_layer")
            .passed()
    );
    let outcome = STAND_IN.run(sized_by_the_first_chunk, "one_chunk_and_none");
    assert!(!outcome.passed(), "{outcome:#?}");
}

#[test]
fn a_cpu_wait_in_the_loop_is_named_by_its_call() {
    STAND_IN.fails(
        synchronizes_in_the_loop,
        "no_cpu_wait_in_the_loop",
        "synchronizes_in_the_loop_wait",
    );
}

fn overlap_figures(backend: gpu::Backend) {
    let ctx = Ctx::new(backend);
    let bench = Bench::open_on(ctx.timed_device().unwrap(), CHUNKS).unwrap();
    bench.run().unwrap();
    bench.device.synchronize().unwrap();
    bench.device.clear_trace();
    let (_, before, after) = bench.run().unwrap();
    let trace = bench.device.trace();
    let stages = Stages::of(&between(&trace, before, after)).unwrap();
    let (limit, serial, took) = (stages.limit(), stages.serial(), stages.span());
    println!(
        "{backend:?}: the solution ran {CHUNKS} chunks in {took:.3} ms; the limit {limit:.3} ms; ratio {:.3} (one after the other: {serial:.3} ms)",
        took / limit
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
