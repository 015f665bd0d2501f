//! The suite's own tests: the solution passes every check, and so does the
//! same slots written again here (`wrong.rs`, knob `RIGHT`); each
//! known-wrong slots of `wrong.rs` fails the check that names its cause,
//! with the message in a snapshot (`snapshots/NAME.snap`).

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
static STAND_IN: StandIn<Generate> = StandIn::new(115, &REPLACEMENT);

/// The loop a test put in place of the solution's, if any.
pub(super) fn replacement() -> Option<Generate> {
    STAND_IN.get()
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(115);
}

#[test]
fn the_slots_written_again_pass_every_check_too() {
    for check in super::CHECKS {
        STAND_IN.passes(given::<Two<RIGHT>>, check.name);
    }
}

#[test]
fn the_starter_s_pageable_copy_is_named_and_its_tokens_are_right() {
    let starter = given::<Pageable>;
    STAND_IN.fails(starter, "the_copies_do_not_wait", "pageable_copies");
    STAND_IN.fails(
        starter,
        "the_gpu_never_waits_for_the_cpu",
        "pageable_overlap",
    );
    STAND_IN.passes(starter, "tokens_match_the_reference");
    STAND_IN.passes(starter, "each_slot_is_read_after_its_event");
}

#[test]
fn a_wait_on_the_newest_slot_is_named_with_the_gpu_s_idle_time() {
    let newest = given::<Two<NEWEST_WAIT>>;
    STAND_IN.fails(newest, "the_gpu_never_waits_for_the_cpu", "newest_wait");
    STAND_IN.passes(newest, "tokens_match_the_reference");
    STAND_IN.passes(newest, "each_slot_is_read_after_its_event");
    STAND_IN.passes(newest, "the_copies_do_not_wait");
}

#[test]
fn an_event_recorded_at_read_is_named_by_where_it_was_recorded() {
    let late = given::<Two<RECORDED_AT_READ>>;
    STAND_IN.fails(late, "the_gpu_never_waits_for_the_cpu", "recorded_at_read");
    STAND_IN.passes(late, "tokens_match_the_reference");
}

#[test]
fn a_read_with_no_wait_before_it_names_the_slot_and_the_step() {
    STAND_IN.fails(
        given::<Two<NO_WAIT>>,
        "each_slot_is_read_after_its_event",
        "no_wait",
    );
    STAND_IN.fails(
        given::<Two<NO_WAIT>>,
        "tokens_match_the_reference",
        "no_wait_tokens",
    );
    STAND_IN.fails(
        given::<Two<READ_THEN_WAIT>>,
        "each_slot_is_read_after_its_event",
        "read_then_wait",
    );
}

#[test]
fn one_slot_and_an_event_before_the_copy_are_named() {
    STAND_IN.fails(
        given::<Two<ONE_SLOT>>,
        "each_slot_is_read_after_its_event",
        "one_slot",
    );
    STAND_IN.fails(
        given::<Two<EVENT_FIRST>>,
        "each_slot_is_read_after_its_event",
        "event_first",
    );
}

#[test]
fn a_wait_for_an_event_never_recorded_is_named() {
    STAND_IN.fails(
        given::<Two<NEVER_RECORDED>>,
        "each_slot_is_read_after_its_event",
        "never_recorded",
    );
}

#[test]
fn copies_on_a_stream_of_their_own_are_named() {
    STAND_IN.fails(
        given::<Two<SIDE_STREAM>>,
        "each_slot_is_read_after_its_event",
        "side_stream",
    );
}

#[test]
fn pinned_memory_allocated_each_step_is_named() {
    STAND_IN.fails(
        given::<Two<ALLOC_EACH>>,
        "the_copies_do_not_wait",
        "alloc_each",
    );
}

#[test]
fn a_synchronize_or_a_poll_in_read_is_named() {
    STAND_IN.fails(
        given::<Two<STREAM_SYNC>>,
        "the_copies_do_not_wait",
        "stream_sync",
    );
    STAND_IN.fails(
        given::<Two<STREAM_SYNC>>,
        "the_gpu_never_waits_for_the_cpu",
        "stream_sync_overlap",
    );
    STAND_IN.fails(given::<Two<POLLS>>, "the_copies_do_not_wait", "polls");
}

#[test]
fn the_newest_slot_read_is_told_one_step_ahead() {
    STAND_IN.fails(
        given::<Two<NEWEST_SLOT>>,
        "tokens_match_the_reference",
        "newest_slot",
    );
}

#[test]
fn a_queue_into_the_other_slot_is_told_by_queue_not_read() {
    STAND_IN.fails(
        given::<Two<QUEUE_OTHER_SLOT>>,
        "tokens_match_the_reference",
        "queue_other_slot",
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
