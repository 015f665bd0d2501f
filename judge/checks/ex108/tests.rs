//! The suite's own tests: the solution passes every check, and so does the
//! other right way (the tokens read through a pinned buffer and an event);
//! each known-wrong loop of `wrong.rs` fails the check that names its
//! cause, with the message in a snapshot (`snapshots/NAME.snap`).

use super::support::Generate;
use super::wrong::*;
use gpu::Backend;
use judge_harness::{Ctx, Outcome};
use std::cell::Cell;

thread_local! {
    /// The loop the checks run instead of the solution's.
    static REPLACEMENT: Cell<Option<Generate>> = const { Cell::new(None) };
}

/// The loop a test put in place of the solution's, if any.
pub(super) fn replacement() -> Option<Generate> {
    REPLACEMENT.with(Cell::get)
}

/// Runs check `name` with `generate` in place of the solution's.
fn run_with(generate: Generate, name: &str) -> Outcome {
    REPLACEMENT.with(|r| r.set(Some(generate)));
    let (outcome, _) = crate::tests::run(108, name, None);
    REPLACEMENT.with(|r| r.set(None));
    outcome
}

/// Asserts that check `name` fails with `generate`, its message the
/// snapshot `snapshot`.
#[track_caller]
fn fails_with(generate: Generate, name: &str, snapshot: &str) {
    let outcome = run_with(generate, name);
    let Outcome::Failed {
        expected,
        actual,
        site,
        detail,
    } = &outcome
    else {
        panic!("`{name}` did not fail: {outcome:#?}");
    };
    let _snapshots = crate::tests::snapshots(108).bind_to_scope();
    insta::assert_snapshot!(
        snapshot,
        crate::tests::render(expected, actual, *site, detail.as_deref())
    );
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(108);
}

#[test]
fn a_pinned_read_behind_an_event_passes_every_check_too() {
    REPLACEMENT.with(|r| r.set(Some(pinned_read)));
    crate::tests::passes_every_check(108);
    REPLACEMENT.with(|r| r.set(None));
}

#[test]
fn a_read_of_the_whole_history_passes_every_check_too() {
    REPLACEMENT.with(|r| r.set(Some(reads_the_whole_history)));
    crate::tests::passes_every_check(108);
    REPLACEMENT.with(|r| r.set(None));
}

#[test]
fn the_starter_s_round_trip_is_named_in_every_check_of_the_trace() {
    fails_with(round_trip, "no_step_waits_for_the_gpu", "round_trip_steps");
    fails_with(
        round_trip,
        "the_cpu_runs_ahead_of_the_gpu",
        "round_trip_ahead",
    );
    fails_with(
        round_trip,
        "the_tokens_are_read_once_at_the_end",
        "round_trip_read",
    );
    assert!(run_with(round_trip, "tokens_match_the_reference").passed());
}

#[test]
fn a_wait_or_a_copy_between_the_steps_is_named_by_its_kind() {
    fails_with(
        synchronizes_every_step,
        "no_step_waits_for_the_gpu",
        "synchronizes_every_step",
    );
    fails_with(
        pinned_copy_every_step,
        "no_step_waits_for_the_gpu",
        "pinned_copy_every_step",
    );
    fails_with(
        clears_each_row_from_the_host,
        "no_step_waits_for_the_gpu",
        "clears_each_row_from_the_host",
    );
    fails_with(
        polls_every_step,
        "no_step_waits_for_the_gpu",
        "polls_every_step",
    );
    fails_with(
        polls_every_step,
        "the_cpu_runs_ahead_of_the_gpu",
        "polls_every_step_ahead",
    );
}

#[test]
fn wrong_tokens_are_named_by_the_shape_of_the_difference() {
    fails_with(
        keeps_the_prompts,
        "tokens_match_the_reference",
        "keeps_the_prompts",
    );
    fails_with(
        decodes_from_the_prompts,
        "tokens_match_the_reference",
        "decodes_from_the_prompts",
    );
    fails_with(
        cut_by_request,
        "tokens_match_the_reference",
        "cut_by_request",
    );
    fails_with(
        copies_the_output_in_first,
        "tokens_match_the_reference",
        "copies_the_output_in_first",
    );
    fails_with(
        reversed_lists,
        "tokens_match_the_reference",
        "reversed_lists",
    );
    fails_with(
        waits_before_the_pinned_copy,
        "tokens_match_the_reference",
        "waits_before_the_pinned_copy",
    );
    fails_with(
        reads_on_another_stream,
        "tokens_match_the_reference",
        "reads_on_another_stream",
    );
    fails_with(
        one_step_too_few,
        "tokens_match_the_reference",
        "one_step_too_few",
    );
    fails_with(
        one_step_too_few,
        "no_step_waits_for_the_gpu",
        "one_step_too_few_steps",
    );
}

#[test]
fn a_read_in_pieces_or_with_two_waits_is_named() {
    fails_with(
        reads_row_by_row,
        "the_tokens_are_read_once_at_the_end",
        "reads_row_by_row",
    );
    fails_with(
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
