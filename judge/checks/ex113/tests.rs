//! The suite's own tests: the solution passes every check, and so does
//! another right way (the whole bucket filled before the copy in); each
//! known-wrong step of `wrong.rs` fails the check that names its cause,
//! with the message in a snapshot (`snapshots/NAME.snap`), and passes the
//! checks its mistake does not touch.

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
    let (outcome, _) = crate::tests::run(113, name, None);
    REPLACEMENT.with(|r| r.set(None));
    outcome
}

/// Asserts that check `name` fails with `new`, its message the
/// snapshot `snapshot`.
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
    let _snapshots = crate::tests::snapshots(113).bind_to_scope();
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
    crate::tests::passes_every_check(113);
}

#[test]
fn the_solution_s_stand_in_and_the_bucket_filled_first_pass_every_check_too() {
    for new in [solution as New, fills_the_bucket_first] {
        REPLACEMENT.with(|r| r.set(Some(new)));
        crate::tests::passes_every_check(113);
        REPLACEMENT.with(|r| r.set(None));
    }
}

#[test]
fn stale_rows_are_named_though_the_tokens_are_right() {
    passes_with(no_padding, "tokens_equal_eager_decoding");
    fails_with(no_padding, "padding_written", "no_padding");
    passes_with(padding_after_the_launch, "tokens_equal_eager_decoding");
    fails_with(
        padding_after_the_launch,
        "padding_written",
        "padding_after_the_launch",
    );
    passes_with(pads_with_minus_one, "tokens_equal_eager_decoding");
    fails_with(
        pads_with_minus_one,
        "padding_written",
        "pads_with_minus_one",
    );
    passes_with(pads_the_static_output, "tokens_equal_eager_decoding");
    fails_with(
        pads_the_static_output,
        "padding_written",
        "pads_the_static_output",
    );
}

#[test]
fn a_copy_out_queued_before_the_launch_is_named() {
    fails_with(
        copies_out_before_the_launch,
        "tokens_equal_eager_decoding",
        "copies_out_before_the_launch",
    );
}

#[test]
fn padding_that_begins_inside_the_batch_is_named_by_both_checks() {
    fails_with(
        padding_from_the_last_row,
        "tokens_equal_eager_decoding",
        "padding_from_the_last_row_tokens",
    );
    fails_with(
        padding_from_the_last_row,
        "padding_written",
        "padding_from_the_last_row",
    );
}

#[test]
fn the_bucket_is_named_with_the_one_it_should_have_been() {
    passes_with(always_the_largest_bucket, "tokens_equal_eager_decoding");
    passes_with(always_the_largest_bucket, "padding_written");
    fails_with(
        always_the_largest_bucket,
        "smallest_bucket",
        "always_the_largest_bucket",
    );
    fails_with(rounds_down, "smallest_bucket", "rounds_down");
    fails_with(
        rounds_down,
        "tokens_equal_eager_decoding",
        "rounds_down_tokens",
    );
    fails_with(strictly_bigger, "smallest_bucket", "strictly_bigger");
}

#[test]
fn an_empty_batch_is_no_step() {
    passes_with(empty_batch_launches, "tokens_equal_eager_decoding");
    fails_with(
        empty_batch_launches,
        "each_step_only_queues",
        "empty_batch_launches",
    );
    fails_with(
        empty_batch_refused,
        "tokens_equal_eager_decoding",
        "empty_batch_refused",
    );
}

#[test]
fn wrong_tokens_are_named_by_the_static_buffers() {
    fails_with(
        not_copied_in,
        "tokens_equal_eager_decoding",
        "not_copied_in",
    );
    fails_with(
        not_copied_out,
        "tokens_equal_eager_decoding",
        "not_copied_out",
    );
    fails_with(
        copies_out_the_bucket,
        "tokens_equal_eager_decoding",
        "copies_out_the_bucket",
    );
    fails_with(
        copies_out_on_another_stream,
        "tokens_equal_eager_decoding",
        "copies_out_on_another_stream",
    );
}

#[test]
fn what_a_step_must_not_do_is_named_by_its_kind() {
    fails_with(synchronizes, "each_step_only_queues", "synchronizes");
    fails_with(
        reads_through_a_vec,
        "each_step_only_queues",
        "reads_through_a_vec",
    );
    fails_with(eager, "each_step_only_queues", "eager");
    passes_with(synchronizes, "tokens_equal_eager_decoding");
}

#[test]
fn a_batch_too_big_is_refused_by_name_before_anything_is_queued() {
    fails_with(
        clamps_to_the_largest_bucket,
        "too_many_rows_refused",
        "clamps_to_the_largest_bucket",
    );
    fails_with(
        max_is_the_number_of_buckets,
        "too_many_rows_refused",
        "max_is_the_number_of_buckets",
    );
    fails_with(
        pads_before_the_size_check,
        "too_many_rows_refused",
        "pads_before_the_size_check",
    );
    passes_with(pads_before_the_size_check, "padding_written");
}

#[test]
fn the_checks_pass_on_any_backend_with_the_solution() {
    let ctx = Ctx::new(Backend::Auto);
    for check in super::CHECKS {
        let result = (check.run)(&ctx);
        assert!(result.is_ok(), "`{}`: {result:?}", check.name);
    }
}
