//! The suite's own tests: the solution passes every check, and so does
//! another right way (the whole bucket filled before the copy in); each
//! known-wrong step of `wrong.rs` fails the check that names its cause,
//! with the message in a snapshot (`snapshots/NAME.snap`), and passes the
//! checks its mistake does not touch.

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
static STAND_IN: StandIn<New> = StandIn::new(113, &REPLACEMENT);

/// The `new` a test put in place of the solution's, if any.
pub(super) fn replacement() -> Option<New> {
    STAND_IN.get()
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(113);
}

#[test]
fn the_solution_s_stand_in_and_the_bucket_filled_first_pass_every_check_too() {
    for new in [solution as New, fills_the_bucket_first] {
        STAND_IN.passes_every_check(new);
    }
}

#[test]
fn stale_rows_are_named_though_the_tokens_are_right() {
    STAND_IN.passes(no_padding, "tokens_equal_eager_decoding");
    STAND_IN.fails(no_padding, "padding_written", "no_padding");
    STAND_IN.passes(padding_after_the_launch, "tokens_equal_eager_decoding");
    STAND_IN.fails(
        padding_after_the_launch,
        "padding_written",
        "padding_after_the_launch",
    );
    STAND_IN.passes(pads_with_minus_one, "tokens_equal_eager_decoding");
    STAND_IN.fails(
        pads_with_minus_one,
        "padding_written",
        "pads_with_minus_one",
    );
    STAND_IN.passes(pads_the_static_output, "tokens_equal_eager_decoding");
    STAND_IN.fails(
        pads_the_static_output,
        "padding_written",
        "pads_the_static_output",
    );
}

#[test]
fn a_copy_out_queued_before_the_launch_is_named() {
    STAND_IN.fails(
        copies_out_before_the_launch,
        "tokens_equal_eager_decoding",
        "copies_out_before_the_launch",
    );
}

#[test]
fn padding_that_begins_inside_the_batch_is_named_by_both_checks() {
    STAND_IN.fails(
        padding_from_the_last_row,
        "tokens_equal_eager_decoding",
        "padding_from_the_last_row_tokens",
    );
    STAND_IN.fails(
        padding_from_the_last_row,
        "padding_written",
        "padding_from_the_last_row",
    );
}

#[test]
fn the_bucket_is_named_with_the_one_it_should_have_been() {
    STAND_IN.passes(always_the_largest_bucket, "tokens_equal_eager_decoding");
    STAND_IN.passes(always_the_largest_bucket, "padding_written");
    STAND_IN.fails(
        always_the_largest_bucket,
        "smallest_bucket",
        "always_the_largest_bucket",
    );
    STAND_IN.fails(rounds_down, "smallest_bucket", "rounds_down");
    STAND_IN.fails(
        rounds_down,
        "tokens_equal_eager_decoding",
        "rounds_down_tokens",
    );
    STAND_IN.fails(strictly_bigger, "smallest_bucket", "strictly_bigger");
}

#[test]
fn an_empty_batch_is_no_step() {
    STAND_IN.passes(empty_batch_launches, "tokens_equal_eager_decoding");
    STAND_IN.fails(
        empty_batch_launches,
        "each_step_only_queues",
        "empty_batch_launches",
    );
    STAND_IN.fails(
        empty_batch_refused,
        "tokens_equal_eager_decoding",
        "empty_batch_refused",
    );
}

#[test]
fn wrong_tokens_are_named_by_the_static_buffers() {
    STAND_IN.fails(
        not_copied_in,
        "tokens_equal_eager_decoding",
        "not_copied_in",
    );
    STAND_IN.fails(
        not_copied_out,
        "tokens_equal_eager_decoding",
        "not_copied_out",
    );
    STAND_IN.fails(
        copies_out_the_bucket,
        "tokens_equal_eager_decoding",
        "copies_out_the_bucket",
    );
    STAND_IN.fails(
        copies_out_on_another_stream,
        "tokens_equal_eager_decoding",
        "copies_out_on_another_stream",
    );
}

#[test]
fn what_a_step_must_not_do_is_named_by_its_kind() {
    STAND_IN.fails(synchronizes, "each_step_only_queues", "synchronizes");
    STAND_IN.fails(
        reads_through_a_vec,
        "each_step_only_queues",
        "reads_through_a_vec",
    );
    STAND_IN.fails(eager, "each_step_only_queues", "eager");
    STAND_IN.passes(synchronizes, "tokens_equal_eager_decoding");
}

#[test]
fn a_batch_too_big_is_refused_by_name_before_anything_is_queued() {
    STAND_IN.fails(
        clamps_to_the_largest_bucket,
        "too_many_rows_refused",
        "clamps_to_the_largest_bucket",
    );
    STAND_IN.fails(
        max_is_the_number_of_buckets,
        "too_many_rows_refused",
        "max_is_the_number_of_buckets",
    );
    STAND_IN.fails(
        pads_before_the_size_check,
        "too_many_rows_refused",
        "pads_before_the_size_check",
    );
    STAND_IN.passes(pads_before_the_size_check, "padding_written");
}

#[test]
fn the_checks_pass_on_any_backend_with_the_solution() {
    let ctx = Ctx::new(Backend::Auto);
    for check in super::CHECKS {
        let result = (check.run)(&ctx);
        assert!(result.is_ok(), "`{}`: {result:?}", check.name);
    }
}
