//! The suite's own tests: the solution passes every check under the
//! course's seed and others; the pairs hold every regression and change
//! with the seed; each known-wrong `diagnose` fails the check that names
//! its cause, its message a snapshot; each known-wrong engine fails the
//! check of its cause.

use super::diagnosis::{Diagnose, judge, kind};
use super::fix::New;
use super::scenes::pairs;
use super::wrong::*;
use crate::tests::StandIn;
use gpu::Backend;
use judge_harness::{COURSE_SEED, Ctx};
use std::cell::Cell;

thread_local! {
    static REPLACEMENT: Cell<Option<Diagnose>> = const { Cell::new(None) };
    static ENGINE: Cell<Option<New>> = const { Cell::new(None) };
}

/// What the suite's tests put in place of the solution's `diagnose`.
static STAND_IN: StandIn<Diagnose> = StandIn::new(121, &REPLACEMENT);
/// What they put in place of the solution's `Engine::new`.
static ENGINE_STAND_IN: StandIn<New> = StandIn::new(121, &ENGINE);

/// The `diagnose` a test put in place of the solution's, if any.
pub(super) fn replacement() -> Option<Diagnose> {
    STAND_IN.get()
}

/// The `Engine::new` a test put in place of the solution's, if any.
pub(super) fn engine_replacement() -> Option<New> {
    ENGINE_STAND_IN.get()
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(121);
}

#[test]
fn every_seed_draws_each_regression_twice_and_the_solution_names_them() {
    let mut drawn = Vec::new();
    for seed in [0, 1, 2, 3, COURSE_SEED] {
        let pairs = pairs(&Ctx::new(Backend::Virtual).with_seed(Some(seed))).unwrap();
        for which in 0..4 {
            let of_kind = pairs.iter().filter(|p| kind(&p.truth) == which).count();
            assert_eq!(of_kind, 2, "seed {seed}: two pairs of regression {which}");
            judge(&pairs, which, find_the_regression::diagnose).unwrap();
        }
        drawn.push(
            pairs
                .iter()
                .map(|p| format!("{:?}", p.change))
                .collect::<Vec<_>>(),
        );
    }
    drawn.dedup();
    assert_eq!(drawn.len(), 5, "each seed draws other pairs");
}

#[test]
fn each_wrong_diagnose_fails_the_check_of_its_cause() {
    let cases: [(Diagnose, &str, &str); 4] = [
        (
            the_launch_before_the_sync,
            "names_each_new_sync",
            "launch_before_the_sync",
        ),
        (
            the_free_as_a_new_sync,
            "names_each_allocation_in_the_loop",
            "free_as_a_new_sync",
        ),
        (
            the_enclosing_range,
            "names_each_launch_bound_range",
            "enclosing_range",
        ),
        (
            the_longest_call_kind,
            "names_each_lost_overlap",
            "longest_call_kind",
        ),
    ];
    for (wrong, check, snapshot) in cases {
        STAND_IN.fails(wrong, check, snapshot);
    }
}

#[test]
fn each_wrong_answer_fails_only_the_checks_of_its_kind() {
    STAND_IN.passes(the_launch_before_the_sync, "names_each_lost_overlap");
    STAND_IN.passes(the_free_as_a_new_sync, "names_each_new_sync");
    STAND_IN.passes(the_enclosing_range, "names_each_allocation_in_the_loop");
}

#[test]
fn the_judge_s_own_step_passes_the_checks_on_the_trace() {
    for check in [
        "only_the_final_read_waits",
        "nothing_is_allocated_in_the_step",
        "the_copy_overlaps_compute",
        "the_step_is_not_launch_bound",
        "the_step_takes_the_reference_time",
    ] {
        ENGINE_STAND_IN.passes(unchanged, check);
    }
    ENGINE_STAND_IN.fails(unchanged, "the_tokens_are_the_reference", "no_tokens");
}

#[test]
fn each_regression_left_in_the_step_fails_the_check_of_its_cause() {
    let cases: [(New, &str, &str); 5] = [
        (synchronizes, "only_the_final_read_waits", "synchronizes"),
        (allocates, "nothing_is_allocated_in_the_step", "allocates"),
        (
            copies_on_compute,
            "the_copy_overlaps_compute",
            "copies_on_compute",
        ),
        (copy_waits, "the_copy_overlaps_compute", "copy_waits"),
        (splits, "the_step_is_not_launch_bound", "splits"),
    ];
    for (wrong, check, snapshot) in cases {
        ENGINE_STAND_IN.fails(wrong, check, snapshot);
    }
    for wrong in [allocates, copies_on_compute, splits] {
        assert!(
            !ENGINE_STAND_IN
                .run(wrong, "the_step_takes_the_reference_time")
                .passed()
        );
    }
}
