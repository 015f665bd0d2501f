//! The suite's own tests: the solution passes every check, and so does
//! another right way (one event per step boundary); the starter's report
//! is right and its four hidden syncs are named; each known-wrong step of
//! `wrong.rs` fails the check that names its cause, with the message in a
//! snapshot (`snapshots/NAME.snap`).

use super::support::New;
use super::wrong::*;
use crate::tests::StandIn;
use gpu::Backend;
use judge_harness::Ctx;
use std::cell::Cell;

thread_local! {
    /// The `new` the checks run instead of the solution's.
    static REPLACEMENT: Cell<Option<New>> = const { Cell::new(None) };
}

/// What the suite's tests put in place of the solution's `New`.
static STAND_IN: StandIn<New> = StandIn::new(116, &REPLACEMENT);

/// The `new` a test put in place of the solution's, if any.
pub(super) fn replacement() -> Option<New> {
    STAND_IN.get()
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(116);
}

#[test]
fn the_solution_s_twin_and_one_event_per_boundary_pass_every_check_too() {
    for new in [solution as New, event_per_boundary] {
        for check in super::CHECKS {
            STAND_IN.passes(new, check.name);
        }
    }
}

#[test]
fn the_starter_is_right_and_its_four_syncs_are_named() {
    STAND_IN.passes(starter, "the_report_is_the_reference");
    STAND_IN.fails(starter, "the_step_only_queues_work", "starter_waits");
    STAND_IN.fails(
        starter,
        "nothing_is_allocated_in_a_step",
        "starter_allocates",
    );
    STAND_IN.fails(starter, "the_cpu_runs_ahead_of_the_gpu", "starter_ahead");
}

#[test]
fn each_wait_in_a_step_is_named_by_its_kind() {
    for (new, snapshot) in [
        (pinned_per_step as New, "pinned_per_step"),
        (branch_on_count, "branch_on_count"),
        (reads_predictions, "reads_predictions"),
        (elapsed_in_step, "elapsed_in_step"),
        (synchronizes_each_step, "synchronizes_each_step"),
        (shallow_ring, "shallow_ring"),
        (shared_event, "shared_event"),
    ] {
        STAND_IN.fails(new, "the_step_only_queues_work", snapshot);
        STAND_IN.fails(
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
    STAND_IN.fails(
        pageable_input,
        "the_step_only_queues_work",
        "pageable_input",
    );
    STAND_IN.passes(pageable_input, "the_cpu_runs_ahead_of_the_gpu");
}

#[test]
fn an_allocation_in_a_step_is_named_by_its_kind() {
    STAND_IN.fails(
        pinned_per_step,
        "nothing_is_allocated_in_a_step",
        "pinned_per_step_allocates",
    );
    STAND_IN.fails(
        fresh_output_each_step,
        "nothing_is_allocated_in_a_step",
        "fresh_output_each_step",
    );
    STAND_IN.passes(fresh_output_each_step, "the_step_only_queues_work");
}

#[test]
fn a_loop_of_queries_is_a_wait_by_another_name() {
    STAND_IN.passes(polls_the_end_event, "the_step_only_queues_work");
    STAND_IN.fails(
        polls_the_end_event,
        "the_cpu_runs_ahead_of_the_gpu",
        "polls_the_end_event",
    );
}

#[test]
fn a_pinned_buffer_rewritten_under_its_copy_is_named_by_the_race() {
    STAND_IN.passes(one_pinned_buffer, "the_step_only_queues_work");
    STAND_IN.fails(
        one_pinned_buffer,
        "the_report_is_the_reference",
        "one_pinned_buffer",
    );
}

#[test]
fn a_wrong_report_is_named_by_its_shape() {
    STAND_IN.fails(no_flags, "the_report_is_the_reference", "no_flags");
    STAND_IN.fails(not_cut, "the_report_is_the_reference", "not_cut");
    STAND_IN.fails(one_row, "the_report_is_the_reference", "one_row");
}

#[test]
fn a_wrong_count_of_finished_requests_is_named_by_its_cause() {
    STAND_IN.fails(clears_flags, "the_report_is_the_reference", "clears_flags");
    STAND_IN.fails(flags_input, "the_report_is_the_reference", "flags_input");
}

#[test]
fn a_history_written_at_offset_t_is_named() {
    STAND_IN.fails(
        offset_by_step,
        "the_report_is_the_reference",
        "offset_by_step",
    );
}

#[test]
fn a_pinned_buffer_written_after_its_copy_is_queued_is_named() {
    STAND_IN.fails(
        writes_after_copy,
        "the_report_is_the_reference",
        "writes_after_copy",
    );
}

#[test]
fn flags_left_out_of_the_step_s_events_are_named_though_the_times_are_close() {
    // `flag_eq` takes microseconds of a 1 ms step: inside the tolerance of
    // the times on any GPU, so only the order of the calls shows it.
    STAND_IN.passes(end_before_flags, "step_times_are_the_gpu_s");
    STAND_IN.fails(
        end_before_flags,
        "the_events_enclose_each_step",
        "end_before_flags",
    );
    STAND_IN.fails(
        start_after_decode,
        "the_events_enclose_each_step",
        "start_after_decode_enclose",
    );
}

#[test]
fn a_run_shorter_than_max_steps_reports_only_its_steps() {
    for check in super::CHECKS {
        if check.name != "a_run_may_stop_before_max_steps" {
            STAND_IN.passes(reads_max_steps, check.name);
        }
    }
    STAND_IN.fails(
        reads_max_steps,
        "a_run_may_stop_before_max_steps",
        "reads_max_steps",
    );
}

#[test]
fn outputs_of_the_models_own_chain_are_named() {
    STAND_IN.fails(
        decodes_predictions,
        "the_report_is_the_reference",
        "decodes_predictions",
    );
}

#[test]
fn wrong_step_times_are_named_by_their_shape() {
    STAND_IN.fails(cpu_clock, "step_times_are_the_gpu_s", "cpu_clock");
    STAND_IN.fails(started_in_new, "step_times_are_the_gpu_s", "started_in_new");
    STAND_IN.fails(running_total, "step_times_are_the_gpu_s", "running_total");
    STAND_IN.fails(
        reversed_elapsed,
        "step_times_are_the_gpu_s",
        "reversed_elapsed",
    );
    STAND_IN.fails(
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
            .any(|c| !STAND_IN.run(*new, c.name).passed());
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
