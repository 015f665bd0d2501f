//! The suite's own tests: the solution passes every check, and so does
//! another right way (one event per step boundary); the starter's report
//! is right and its four hidden syncs are named; each known-wrong step of
//! `wrong.rs` fails the check that names its cause, with the message in a
//! snapshot (`snapshots/NAME.snap`).

use super::support::New;
use super::wrong::*;
use gpu::Backend;
use judge_harness::{Ctx, Outcome};
use std::cell::Cell;

thread_local! {
    /// The `new` the checks run instead of the solution's.
    static REPLACEMENT: Cell<Option<New>> = const { Cell::new(None) };
}

/// The `new` a test put in place of the solution's, if any.
pub(super) fn replacement() -> Option<New> {
    REPLACEMENT.with(Cell::get)
}

/// Runs check `name` with `new` in place of the solution's.
fn run_with(new: New, name: &str) -> Outcome {
    REPLACEMENT.with(|r| r.set(Some(new)));
    let (outcome, _) = crate::tests::run(116, name, None);
    REPLACEMENT.with(|r| r.set(None));
    outcome
}

/// Asserts that check `name` fails with `new`, its message the snapshot
/// `snapshot`.
#[track_caller]
fn fails_with(new: New, name: &str, snapshot: &str) {
    let outcome = run_with(new, name);
    let Outcome::Failed {
        expected,
        actual,
        site,
        detail,
    } = &outcome
    else {
        panic!("`{name}` did not fail: {outcome:#?}");
    };
    let _snapshots = crate::tests::snapshots(116).bind_to_scope();
    insta::assert_snapshot!(
        snapshot,
        crate::tests::render(expected, actual, *site, detail.as_deref())
    );
}

/// Asserts that check `name` passes with `new`.
#[track_caller]
fn passes_with(new: New, name: &str) {
    let outcome = run_with(new, name);
    assert!(outcome.passed(), "`{name}`: {outcome:#?}");
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(116);
}

#[test]
fn the_solution_s_twin_and_one_event_per_boundary_pass_every_check_too() {
    for new in [solution as New, event_per_boundary] {
        for check in super::CHECKS {
            passes_with(new, check.name);
        }
    }
}

#[test]
fn the_starter_is_right_and_its_four_syncs_are_named() {
    passes_with(starter, "the_report_is_the_reference");
    fails_with(starter, "the_step_only_queues_work", "starter_waits");
    fails_with(
        starter,
        "nothing_is_allocated_in_a_step",
        "starter_allocates",
    );
    fails_with(starter, "the_cpu_runs_ahead_of_the_gpu", "starter_ahead");
}

#[test]
fn each_wait_in_a_step_is_named_by_its_kind() {
    for (new, snapshot) in [
        (pinned_per_step as New, "pinned_per_step"),
        (branch_on_count, "branch_on_count"),
        (reads_predictions, "reads_predictions"),
        (elapsed_in_step, "elapsed_in_step"),
        (synchronizes_each_step, "synchronizes_each_step"),
    ] {
        fails_with(new, "the_step_only_queues_work", snapshot);
        fails_with(
            new,
            "the_cpu_runs_ahead_of_the_gpu",
            &format!("{snapshot}_ahead"),
        );
    }
}

#[test]
fn a_small_pageable_copy_is_named_though_it_did_not_wait() {
    // 128 bytes travel in the command stream: the CPU ran ahead this time,
    // and the same call of 4 MiB would not have.
    fails_with(
        pageable_input,
        "the_step_only_queues_work",
        "pageable_input",
    );
    passes_with(pageable_input, "the_cpu_runs_ahead_of_the_gpu");
}

#[test]
fn an_allocation_in_a_step_is_named_by_its_kind() {
    fails_with(
        pinned_per_step,
        "nothing_is_allocated_in_a_step",
        "pinned_per_step_allocates",
    );
    fails_with(
        fresh_output_each_step,
        "nothing_is_allocated_in_a_step",
        "fresh_output_each_step",
    );
    passes_with(fresh_output_each_step, "the_step_only_queues_work");
}

#[test]
fn a_loop_of_queries_is_a_wait_by_another_name() {
    passes_with(polls_the_end_event, "the_step_only_queues_work");
    fails_with(
        polls_the_end_event,
        "the_cpu_runs_ahead_of_the_gpu",
        "polls_the_end_event",
    );
}

#[test]
fn a_pinned_buffer_rewritten_under_its_copy_is_named_by_the_race() {
    passes_with(one_pinned_buffer, "the_step_only_queues_work");
    fails_with(
        one_pinned_buffer,
        "the_report_is_the_reference",
        "one_pinned_buffer",
    );
}

#[test]
fn a_wrong_report_is_named_by_its_shape() {
    fails_with(no_flags, "the_report_is_the_reference", "no_flags");
    fails_with(not_cut, "the_report_is_the_reference", "not_cut");
    fails_with(one_row, "the_report_is_the_reference", "one_row");
}

#[test]
fn a_wrong_count_of_finished_requests_is_named_by_its_cause() {
    fails_with(clears_flags, "the_report_is_the_reference", "clears_flags");
    fails_with(flags_input, "the_report_is_the_reference", "flags_input");
}

#[test]
fn a_history_written_at_offset_t_is_named() {
    fails_with(
        offset_by_step,
        "the_report_is_the_reference",
        "offset_by_step",
    );
}

#[test]
fn a_pinned_buffer_written_after_its_copy_is_queued_is_named() {
    fails_with(
        writes_after_copy,
        "the_report_is_the_reference",
        "writes_after_copy",
    );
}

#[test]
fn flags_left_out_of_the_step_s_events_are_named_though_the_times_are_close() {
    // `flag_eq` takes microseconds of a 1 ms step: inside the tolerance of
    // the times on any GPU, so only the order of the calls shows it.
    passes_with(end_before_flags, "step_times_are_the_gpu_s");
    fails_with(
        end_before_flags,
        "the_events_enclose_each_step",
        "end_before_flags",
    );
    fails_with(
        start_after_decode,
        "the_events_enclose_each_step",
        "start_after_decode_enclose",
    );
}

#[test]
fn a_run_shorter_than_max_steps_reports_only_its_steps() {
    for check in super::CHECKS {
        if check.name != "a_run_may_stop_before_max_steps" {
            passes_with(reads_max_steps, check.name);
        }
    }
    fails_with(
        reads_max_steps,
        "a_run_may_stop_before_max_steps",
        "reads_max_steps",
    );
}

#[test]
fn wrong_step_times_are_named_by_their_shape() {
    fails_with(cpu_clock, "step_times_are_the_gpu_s", "cpu_clock");
    fails_with(started_in_new, "step_times_are_the_gpu_s", "started_in_new");
    fails_with(running_total, "step_times_are_the_gpu_s", "running_total");
    fails_with(
        start_after_decode,
        "step_times_are_the_gpu_s",
        "start_after_decode",
    );
}

#[test]
fn every_known_wrong_decoding_fails_some_check() {
    for (name, new) in ALL {
        if ["solution", "event_per_boundary"].contains(name) {
            continue;
        }
        let failed = super::CHECKS
            .iter()
            .any(|c| !run_with(*new, c.name).passed());
        assert!(failed, "`{name}` passes every check");
    }
}

#[test]
fn the_checks_pass_on_any_backend_with_the_solution() {
    let ctx = Ctx::new(Backend::Auto);
    for check in super::CHECKS {
        let result = (check.run)(&ctx);
        assert!(result.is_ok(), "`{}`: {result:?}", check.name);
    }
}
