//! The suite's own tests: the solution passes every check; each known-wrong
//! allocator of `wrong.rs` fails the check that names its cause, with the
//! message in a snapshot (`snapshots/NAME.snap`), and passes the checks
//! its mistake does not touch.

use super::support::{Open, open};
use super::wrong::*;
use crate::tests::StandIn;
use std::cell::Cell;

thread_local! {
    /// The allocator the checks run instead of the solution's.
    static REPLACEMENT: Cell<Option<Open>> = const { Cell::new(None) };
}

/// What the suite's tests put in place of the solution's `Open`.
static STAND_IN: StandIn<Open> = StandIn::new(114, &REPLACEMENT);

/// The allocator a test put in place of the solution's, if any.
pub(super) fn replacement() -> Option<Open> {
    STAND_IN.get()
}

/// The checks that read a stream's use of a block.
const STREAM_CHECKS: [&str; 3] = [
    "a_block_another_stream_reads_waits",
    "a_pending_block_comes_back",
    "events_complete_in_any_order",
];

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(114);
}

#[test]
fn a_missed_note_or_a_misplaced_event_is_named_by_the_race() {
    for (wrong, name) in [
        (open::<Wrong<NO_NOTE>> as Open, "no_note"),
        (open::<Wrong<EVENT_ON_OWNER>>, "event_on_owner"),
        (
            open::<Wrong<EVENT_AT_RECORD_STREAM>>,
            "event_at_record_stream",
        ),
        (open::<Wrong<EVENTS_IGNORED>>, "events_ignored"),
        (open::<Wrong<INVERTED_QUERY>>, "inverted_query"),
    ] {
        STAND_IN.fails(wrong, "a_block_another_stream_reads_waits", name);
        STAND_IN.passes(wrong, "the_owner_reuses_at_once");
        STAND_IN.passes(wrong, "the_cpu_never_waits");
    }
}

#[test]
fn a_misplaced_event_is_told_by_where_it_was_recorded_not_by_a_completion() {
    for (wrong, name) in [
        (
            open::<Wrong<EVENT_ON_OWNER>> as Open,
            "event_on_owner_order",
        ),
        (
            open::<Wrong<EVENT_AT_RECORD_STREAM>>,
            "event_at_record_stream_order",
        ),
    ] {
        STAND_IN.fails(wrong, "events_complete_in_any_order", name);
    }
}

#[test]
fn a_pending_block_skipped_in_the_pass_is_told_by_the_events_asked() {
    STAND_IN.fails(
        open::<Wrong<SKIPS_SWAPPED>>,
        "a_pending_block_comes_back",
        "skips_swapped",
    );
}

#[test]
fn a_second_note_dropped_is_told_by_the_event_free_did_not_record() {
    STAND_IN.fails(
        open::<Wrong<FIRST_NOTE_ONLY>>,
        "events_complete_in_any_order",
        "first_note_only",
    );
}

#[test]
fn a_pending_block_never_asked_never_comes_back() {
    STAND_IN.fails(
        open::<Wrong<NEVER_POLLS>>,
        "a_pending_block_comes_back",
        "never_polls",
    );
    STAND_IN.fails(
        open::<Wrong<INVERTED_QUERY>>,
        "a_pending_block_comes_back",
        "inverted_query_back",
    );
    STAND_IN.passes(
        open::<Wrong<NEVER_POLLS>>,
        "a_block_another_stream_reads_waits",
    );
}

#[test]
fn events_completing_out_of_order_are_told_by_the_block_handed_out() {
    for (wrong, name) in [
        (open::<Wrong<HEAD_OF_LINE>> as Open, "head_of_line"),
        (open::<Wrong<ANY_EVENT>>, "any_event"),
        (open::<Wrong<RELEASE_ALL>>, "release_all"),
    ] {
        STAND_IN.fails(wrong, "events_complete_in_any_order", name);
        STAND_IN.passes(wrong, "a_block_another_stream_reads_waits");
        STAND_IN.passes(wrong, "a_pending_block_comes_back");
    }
}

#[test]
fn every_cpu_wait_is_named_by_its_kind() {
    for (wrong, name) in [
        (open::<Wrong<SYNC_IN_MALLOC>> as Open, "sync_in_malloc"),
        (open::<Wrong<SYNC_IN_FREE>>, "sync_in_free"),
        (open::<Wrong<FREES_THE_SEGMENT>>, "frees_the_segment"),
    ] {
        STAND_IN.fails(wrong, "the_cpu_never_waits", name);
    }
    STAND_IN.fails(
        open::<Wrong<SYNC_IN_MALLOC>>,
        "events_complete_in_any_order",
        "sync_in_malloc_order",
    );
    for name in &STREAM_CHECKS[..2] {
        STAND_IN.passes(open::<Wrong<SYNC_IN_MALLOC>>, name);
    }
}

#[test]
fn the_owner_s_own_mistakes_are_named() {
    for (wrong, name) in [
        (open::<Wrong<OWNER_NOTED>> as Open, "owner_noted"),
        (open::<Wrong<ANY_SIZE>>, "any_size"),
        (open::<Wrong<BIG_ENOUGH>>, "big_enough"),
        (open::<Wrong<NEVER_REUSES>>, "never_reuses"),
        (open::<Wrong<FREES_THE_SEGMENT>>, "frees_the_segment_owner"),
        (open::<Wrong<EVENT_FOR_EVERY_FREE>>, "event_for_every_free"),
        (open::<Wrong<PREALLOCATES>>, "preallocates"),
    ] {
        STAND_IN.fails(wrong, "the_owner_reuses_at_once", name);
    }
    for name in STREAM_CHECKS {
        STAND_IN.passes(open::<Wrong<OWNER_NOTED>>, name);
    }
}
