//! The suite's own tests: the solution passes every check, and so does
//! another right way (the copy out on a side stream behind events); each
//! known-wrong step of `wrong.rs` fails the check that names its cause,
//! with the message in a snapshot (`snapshots/NAME.snap`).

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
static STAND_IN: StandIn<New> = StandIn::new(110, &REPLACEMENT);

/// The `new` a test put in place of the solution's, if any.
pub(super) fn replacement() -> Option<New> {
    STAND_IN.get()
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(110);
}

#[test]
fn a_copy_out_on_a_side_stream_behind_events_passes_every_check_too() {
    STAND_IN.passes_every_check(side_stream_behind_events);
}

#[test]
fn the_starter_is_right_and_fails_both_checks_of_the_graph() {
    assert!(STAND_IN.run(eager, "tokens_equal_eager_decoding").passed());
    STAND_IN.fails(eager, "captured_once_in_new", "eager_capture");
    STAND_IN.fails(eager, "each_step_is_one_replay", "eager_replay");
}

#[test]
fn a_capture_in_every_step_is_named() {
    STAND_IN.fails(
        captures_every_step,
        "captured_once_in_new",
        "captures_every_step",
    );
    STAND_IN.fails(
        captures_every_step,
        "each_step_is_one_replay",
        "captures_every_step_replay",
    );
}

#[test]
fn a_graph_that_is_not_the_one_step_is_named() {
    STAND_IN.fails(
        captures_twice_in_new,
        "captured_once_in_new",
        "captures_twice_in_new",
    );
    STAND_IN.fails(
        two_steps_in_the_graph,
        "captured_once_in_new",
        "two_steps_in_the_graph",
    );
    assert!(
        STAND_IN
            .run(two_steps_in_the_graph, "tokens_equal_eager_decoding")
            .passed()
    );
}

#[test]
fn what_a_step_must_not_do_is_named_by_its_kind() {
    STAND_IN.fails(
        fresh_input_each_step,
        "each_step_is_one_replay",
        "fresh_input_each_step",
    );
    STAND_IN.fails(
        synchronizes_every_step,
        "each_step_is_one_replay",
        "synchronizes_every_step",
    );
    STAND_IN.fails(
        reads_through_a_vec,
        "each_step_is_one_replay",
        "reads_through_a_vec",
    );
    STAND_IN.fails(replays_twice, "each_step_is_one_replay", "replays_twice");
    STAND_IN.fails(
        eager_on_the_static_buffers,
        "each_step_is_one_replay",
        "eager_on_the_static_buffers",
    );
}

#[test]
fn wrong_tokens_are_named_by_the_shape_of_the_difference() {
    STAND_IN.fails(
        input_not_copied,
        "tokens_equal_eager_decoding",
        "input_not_copied",
    );
    STAND_IN.fails(
        fresh_input_each_step,
        "tokens_equal_eager_decoding",
        "fresh_input_each_step_tokens",
    );
    STAND_IN.fails(
        output_not_copied,
        "tokens_equal_eager_decoding",
        "output_not_copied",
    );
    STAND_IN.fails(
        copies_out_before_the_launch,
        "tokens_equal_eager_decoding",
        "copies_out_before_the_launch",
    );
    STAND_IN.fails(
        copies_in_once,
        "tokens_equal_eager_decoding",
        "copies_in_once",
    );
    STAND_IN.fails(
        copies_in_after_the_launch,
        "tokens_equal_eager_decoding",
        "copies_in_after_the_launch",
    );
    STAND_IN.fails(
        feeds_the_output_back,
        "tokens_equal_eager_decoding",
        "feeds_the_output_back",
    );
    STAND_IN.fails(
        copies_out_into_tokens,
        "tokens_equal_eager_decoding",
        "copies_out_into_tokens",
    );
}

#[test]
fn a_captured_buffer_freed_while_the_graph_lives_is_named() {
    // The pool hands the freed memory to the struct's buffers: the tokens
    // come out right, and only the trace shows the free.
    assert!(
        STAND_IN
            .run(captured_on_dropped_buffers, "tokens_equal_eager_decoding")
            .passed()
    );
    STAND_IN.fails(
        captured_on_dropped_buffers,
        "captured_buffers_outlive_the_graph",
        "captured_on_dropped_buffers",
    );
    STAND_IN.fails(
        replaces_the_input,
        "captured_buffers_outlive_the_graph",
        "replaces_the_input_outlive",
    );
}

#[test]
fn work_on_a_stream_nothing_orders_is_named_by_the_race() {
    STAND_IN.fails(
        copies_out_on_another_stream,
        "tokens_equal_eager_decoding",
        "copies_out_on_another_stream",
    );
    STAND_IN.fails(
        captured_on_a_side_stream,
        "tokens_equal_eager_decoding",
        "captured_on_a_side_stream",
    );
    STAND_IN.fails(
        side_stream_one_way,
        "tokens_equal_eager_decoding",
        "side_stream_one_way",
    );
}

#[test]
fn a_call_that_fails_is_explained() {
    STAND_IN.fails(
        replaces_the_input,
        "tokens_equal_eager_decoding",
        "replaces_the_input",
    );
    STAND_IN.fails(
        allocates_in_the_capture,
        "captured_once_in_new",
        "allocates_in_the_capture",
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
