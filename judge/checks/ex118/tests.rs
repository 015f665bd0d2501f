//! The suite's own tests: the solution passes every check, and so does the
//! same loop written with a start event per step too; each known-wrong loop
//! of `wrong.rs` fails the check that names its cause, with the message in
//! a snapshot (`snapshots/NAME.snap`).

use super::workload::{DEPTH, KERNEL, KERNELS, STEPS, Submit, submit_with};
use super::wrong::*;
use crate::tests::StandIn;
use judge_harness::Ctx;
use std::cell::Cell;

thread_local! {
    /// The `submit` the checks run instead of the solution's.
    static REPLACEMENT: Cell<Option<Submit>> = const { Cell::new(None) };
}

/// What the suite's tests put in place of the solution's `Submit`.
static STAND_IN: StandIn<Submit> = StandIn::new(118, &REPLACEMENT);

/// The `submit` a test put in place of the solution's, if any.
pub(super) fn replacement() -> Option<Submit> {
    STAND_IN.get()
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(118);
}

#[test]
fn the_same_loop_with_a_start_event_per_step_passes_every_check() {
    let suite = crate::suite(118).expect("suite 118");
    for check in suite {
        let outcome = STAND_IN.run(right, check.name);
        assert!(outcome.passed(), "`{}`: {outcome:#?}", check.name);
    }
}

#[test]
fn the_solution_keeps_the_gpu_busy_from_the_first_kernel_to_the_last() {
    let submission = submit_with(
        &Ctx::new(gpu::Backend::Virtual),
        backpressure::submit,
        STEPS,
        DEPTH,
    )
    .expect("the steps run");
    let first = submission.steps.first().expect("a step").gpu_ns.0;
    let last = submission.steps.last().expect("a step").gpu_ns.1;
    let busy = (STEPS * KERNELS) as u64 * KERNEL.as_nanos() as u64;
    assert!(
        last - first <= busy + busy / 100,
        "{} ns for {busy} ns of kernels",
        last - first
    );
}

#[test]
fn a_loop_that_never_waits_has_every_step_in_flight() {
    STAND_IN.fails(never_waits, "at_most_depth_in_flight", "never_waits");
    STAND_IN.fails(
        waits_on_the_gpu,
        "at_most_depth_in_flight",
        "waits_on_the_gpu",
    );
}

#[test]
fn a_wait_once_more_than_depth_are_queued_lets_one_too_many_in() {
    STAND_IN.fails(one_too_many, "at_most_depth_in_flight", "one_too_many");
}

#[test]
fn a_synchronize_after_each_step_idles_the_gpu() {
    STAND_IN.fails(
        synchronizes_each_step,
        "the_gpu_never_idles",
        "synchronizes_each_step",
    );
    STAND_IN.fails(
        synchronizes_each_step,
        "only_the_oldest_is_waited_for",
        "synchronizes_each_step_waits",
    );
}

#[test]
fn a_wait_for_the_newest_event_idles_the_gpu() {
    STAND_IN.fails(
        waits_for_the_newest,
        "the_gpu_never_idles",
        "waits_for_the_newest",
    );
    STAND_IN.fails(
        waits_for_the_newest,
        "only_the_oldest_is_waited_for",
        "waits_for_the_newest_waits",
    );
}

#[test]
fn a_synchronize_when_full_idles_the_gpu() {
    STAND_IN.fails(
        synchronizes_when_full,
        "the_gpu_never_idles",
        "synchronizes_when_full",
    );
}

#[test]
fn no_final_wait_returns_with_steps_unfinished() {
    STAND_IN.fails(no_final_wait, "every_step_once_in_order", "no_final_wait");
}

#[test]
fn each_event_waited_for_at_the_end_is_one_wait_too_many() {
    STAND_IN.fails(
        drains_each_at_the_end,
        "only_the_oldest_is_waited_for",
        "drains_each_at_the_end",
    );
}

#[test]
fn steps_counted_from_one_are_named() {
    STAND_IN.fails(
        counts_from_one,
        "every_step_once_in_order",
        "counts_from_one",
    );
}

#[test]
fn elapsed_read_after_each_step_is_a_wait_of_its_own() {
    STAND_IN.fails(
        elapsed_each_step,
        "only_the_oldest_is_waited_for",
        "elapsed_each_step",
    );
}

#[test]
fn a_wait_once_depth_minus_one_are_queued_waits_too_early() {
    STAND_IN.fails(one_too_few, "only_the_oldest_is_waited_for", "one_too_few");
}

#[test]
fn events_that_cannot_bound_the_steps_are_named_by_where_they_were_recorded() {
    for (submit, snapshot) in [
        (records_before_the_step as Submit, "records_before_the_step"),
        (events_on_another_stream, "events_on_another_stream"),
    ] {
        STAND_IN.fails(submit, "at_most_depth_in_flight", snapshot);
        STAND_IN.fails(
            submit,
            "every_step_once_in_order",
            &format!("{snapshot}_unfinished"),
        );
    }
}

#[test]
fn a_final_wait_for_an_older_step_is_named() {
    STAND_IN.fails(
        oldest_at_the_end,
        "every_step_once_in_order",
        "oldest_at_the_end",
    );
}

#[test]
fn a_panic_with_no_step_is_told_by_the_empty_shape_s_rule() {
    STAND_IN.fails(
        unwraps_at_the_end,
        "other_shapes_are_followed",
        "unwraps_at_the_end",
    );
}

#[test]
fn a_wait_after_the_step_is_named() {
    STAND_IN.fails(
        waits_after_the_step,
        "at_most_depth_in_flight",
        "waits_after_the_step",
    );
}

#[test]
fn a_stream_per_step_is_named() {
    STAND_IN.fails(
        stream_per_step,
        "every_step_once_in_order",
        "stream_per_step",
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn the_solution_passes_every_check_on_the_gpu() {
    let ctx = Ctx::new(gpu::Backend::Cuda);
    for check in crate::suite(118).expect("suite 118") {
        let (outcome, _) = judge_harness::run_check(check, &ctx);
        assert!(
            outcome.passed(),
            "`{}` on the GPU: {outcome:#?}",
            check.name
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn a_wait_for_the_newest_event_idles_the_gpu_on_the_gpu_too() {
    let ctx = Ctx::new(gpu::Backend::Cuda);
    let check = crate::suite(118)
        .expect("suite 118")
        .iter()
        .find(|c| c.name == "the_gpu_never_idles")
        .expect("the check");
    let (outcome, _) = STAND_IN.with(waits_for_the_newest, || {
        judge_harness::run_check(check, &ctx)
    });
    assert!(!outcome.passed(), "{outcome:#?}");
    println!("{outcome:#?}");
}
