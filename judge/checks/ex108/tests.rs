//! The suite's own tests: the solution passes every check, and so does the
//! other right way (the tokens read through a pinned buffer and an event);
//! each known-wrong loop of `wrong.rs` fails the check that names its
//! cause, with the message in a snapshot (`snapshots/NAME.snap`).

use super::support::Generate;
use super::wrong::*;
use crate::tests::StandIn;
use gpu::Backend;
use judge_harness::Ctx;
use std::cell::Cell;

thread_local! {
    /// The loop the checks run instead of the solution's.
    static REPLACEMENT: Cell<Option<Generate>> = const { Cell::new(None) };
}

/// What the suite's tests put in place of the solution's `Generate`.
static STAND_IN: StandIn<Generate> = StandIn::new(108, &REPLACEMENT);

/// The loop a test put in place of the solution's, if any.
pub(super) fn replacement() -> Option<Generate> {
    STAND_IN.get()
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(108);
}

#[test]
fn a_pinned_read_behind_an_event_passes_every_check_too() {
    STAND_IN.passes_every_check(pinned_read);
}

#[test]
fn a_read_of_the_whole_history_passes_every_check_too() {
    STAND_IN.passes_every_check(reads_the_whole_history);
}

#[test]
fn the_starter_s_round_trip_is_named_in_every_check_of_the_trace() {
    STAND_IN.fails(round_trip, "no_step_waits_for_the_gpu", "round_trip_steps");
    STAND_IN.fails(
        round_trip,
        "the_cpu_runs_ahead_of_the_gpu",
        "round_trip_ahead",
    );
    STAND_IN.fails(
        round_trip,
        "the_tokens_are_read_once_at_the_end",
        "round_trip_read",
    );
    assert!(
        STAND_IN
            .run(round_trip, "tokens_match_the_reference")
            .passed()
    );
}

#[test]
fn a_wait_or_a_copy_between_the_steps_is_named_by_its_kind() {
    STAND_IN.fails(
        synchronizes_every_step,
        "no_step_waits_for_the_gpu",
        "synchronizes_every_step",
    );
    STAND_IN.fails(
        pinned_copy_every_step,
        "no_step_waits_for_the_gpu",
        "pinned_copy_every_step",
    );
    STAND_IN.fails(
        clears_each_row_from_the_host,
        "no_step_waits_for_the_gpu",
        "clears_each_row_from_the_host",
    );
    STAND_IN.fails(
        polls_every_step,
        "no_step_waits_for_the_gpu",
        "polls_every_step",
    );
    STAND_IN.fails(
        polls_every_step,
        "the_cpu_runs_ahead_of_the_gpu",
        "polls_every_step_ahead",
    );
}

#[test]
fn wrong_tokens_are_named_by_the_shape_of_the_difference() {
    STAND_IN.fails(
        swaps_the_rows,
        "tokens_match_the_reference",
        "swaps_the_rows",
    );
    STAND_IN.fails(
        keeps_the_prompts,
        "tokens_match_the_reference",
        "keeps_the_prompts",
    );
    STAND_IN.fails(
        decodes_from_the_prompts,
        "tokens_match_the_reference",
        "decodes_from_the_prompts",
    );
    STAND_IN.fails(
        cut_by_request,
        "tokens_match_the_reference",
        "cut_by_request",
    );
    STAND_IN.fails(
        copies_the_output_in_first,
        "tokens_match_the_reference",
        "copies_the_output_in_first",
    );
    STAND_IN.fails(
        reversed_lists,
        "tokens_match_the_reference",
        "reversed_lists",
    );
    STAND_IN.fails(
        waits_before_the_pinned_copy,
        "tokens_match_the_reference",
        "waits_before_the_pinned_copy",
    );
    STAND_IN.fails(
        reads_on_another_stream,
        "tokens_match_the_reference",
        "reads_on_another_stream",
    );
    STAND_IN.fails(
        one_step_too_few,
        "tokens_match_the_reference",
        "one_step_too_few",
    );
    STAND_IN.fails(
        one_step_too_few,
        "no_step_waits_for_the_gpu",
        "one_step_too_few_steps",
    );
}

#[test]
fn a_read_in_pieces_or_with_two_waits_is_named() {
    STAND_IN.fails(
        reads_row_by_row,
        "the_tokens_are_read_once_at_the_end",
        "reads_row_by_row",
    );
    STAND_IN.fails(
        synchronizes_before_the_read,
        "the_tokens_are_read_once_at_the_end",
        "synchronizes_before_the_read",
    );
}

#[test]
fn the_checks_pass_on_any_backend_with_the_solution() {
    let ctx = Ctx::new(Backend::Auto);
    for check in super::CHECKS {
        let result = (check.run)(&ctx);
        assert!(result.is_ok(), "`{}`: {result:?}", check.name);
    }
}
