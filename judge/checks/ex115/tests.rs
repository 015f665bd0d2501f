//! The suite's own tests: the solution passes every check, and so does the
//! same slots written again here (`wrong.rs`, knob `RIGHT`); each
//! known-wrong slots of `wrong.rs` fails the check that names its cause,
//! with the message in a snapshot (`snapshots/NAME.snap`).

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
    let (outcome, _) = crate::tests::run(115, name, None);
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
    let _snapshots = crate::tests::snapshots(115).bind_to_scope();
    insta::assert_snapshot!(
        snapshot,
        crate::tests::render(expected, actual, *site, detail.as_deref())
    );
}

/// Asserts that check `name` passes with `generate`.
#[track_caller]
fn passes_with(generate: Generate, name: &str) {
    let outcome = run_with(generate, name);
    assert!(outcome.passed(), "`{name}`: {outcome:#?}");
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(115);
}

#[test]
fn the_slots_written_again_pass_every_check_too() {
    for check in super::CHECKS {
        passes_with(given::<Two<RIGHT>>, check.name);
    }
}

#[test]
fn the_starter_s_pageable_copy_is_named_and_its_tokens_are_right() {
    let starter = given::<Pageable>;
    fails_with(starter, "the_copies_do_not_wait", "pageable_copies");
    fails_with(
        starter,
        "the_gpu_never_waits_for_the_cpu",
        "pageable_overlap",
    );
    passes_with(starter, "tokens_match_the_reference");
    passes_with(starter, "each_slot_is_read_after_its_event");
}

#[test]
fn a_wait_on_the_newest_slot_is_named_with_the_gpu_s_idle_time() {
    let newest = given::<Two<NEWEST_WAIT>>;
    fails_with(newest, "the_gpu_never_waits_for_the_cpu", "newest_wait");
    passes_with(newest, "tokens_match_the_reference");
    passes_with(newest, "each_slot_is_read_after_its_event");
    passes_with(newest, "the_copies_do_not_wait");
}

#[test]
fn an_event_recorded_at_read_is_named_by_where_it_was_recorded() {
    let late = given::<Two<RECORDED_AT_READ>>;
    fails_with(late, "the_gpu_never_waits_for_the_cpu", "recorded_at_read");
    passes_with(late, "tokens_match_the_reference");
}

#[test]
fn a_read_with_no_wait_before_it_names_the_slot_and_the_step() {
    fails_with(
        given::<Two<NO_WAIT>>,
        "each_slot_is_read_after_its_event",
        "no_wait",
    );
    fails_with(
        given::<Two<NO_WAIT>>,
        "tokens_match_the_reference",
        "no_wait_tokens",
    );
    fails_with(
        given::<Two<READ_THEN_WAIT>>,
        "each_slot_is_read_after_its_event",
        "read_then_wait",
    );
}

#[test]
fn one_slot_and_an_event_before_the_copy_are_named() {
    fails_with(
        given::<Two<ONE_SLOT>>,
        "each_slot_is_read_after_its_event",
        "one_slot",
    );
    fails_with(
        given::<Two<EVENT_FIRST>>,
        "each_slot_is_read_after_its_event",
        "event_first",
    );
}

#[test]
fn a_wait_for_an_event_never_recorded_is_named() {
    fails_with(
        given::<Two<NEVER_RECORDED>>,
        "each_slot_is_read_after_its_event",
        "never_recorded",
    );
}

#[test]
fn copies_on_a_stream_of_their_own_are_named() {
    fails_with(
        given::<Two<SIDE_STREAM>>,
        "each_slot_is_read_after_its_event",
        "side_stream",
    );
}

#[test]
fn pinned_memory_allocated_each_step_is_named() {
    fails_with(
        given::<Two<ALLOC_EACH>>,
        "the_copies_do_not_wait",
        "alloc_each",
    );
}

#[test]
fn a_synchronize_or_a_poll_in_read_is_named() {
    fails_with(
        given::<Two<STREAM_SYNC>>,
        "the_copies_do_not_wait",
        "stream_sync",
    );
    fails_with(
        given::<Two<STREAM_SYNC>>,
        "the_gpu_never_waits_for_the_cpu",
        "stream_sync_overlap",
    );
    fails_with(given::<Two<POLLS>>, "the_copies_do_not_wait", "polls");
}

#[test]
fn the_newest_slot_read_is_told_one_step_ahead() {
    fails_with(
        given::<Two<NEWEST_SLOT>>,
        "tokens_match_the_reference",
        "newest_slot",
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
