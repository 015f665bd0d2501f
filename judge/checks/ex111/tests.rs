//! The suite's own tests: the solution passes every check, and so does
//! another right way (an event made first, recorded later); each
//! known-wrong `handoff` of `wrong.rs` fails the check that names its
//! cause, with the message in a snapshot (`snapshots/NAME.snap`).

use super::support::Handoff;
use super::wrong::*;
use crate::tests::StandIn;
use gpu::Backend;
use judge_harness::Ctx;
use std::cell::Cell;

thread_local! {
    /// The `handoff` the checks run instead of the solution's.
    static REPLACEMENT: Cell<Option<Handoff>> = const { Cell::new(None) };
}

/// What the suite's tests put in place of the solution's `Handoff`.
static STAND_IN: StandIn<Handoff> = StandIn::new(111, &REPLACEMENT);

/// The `handoff` a test put in place of the solution's, if any.
pub(super) fn replacement() -> Option<Handoff> {
    STAND_IN.get()
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(111);
}

#[test]
fn an_event_made_first_and_recorded_later_passes_every_check_too() {
    STAND_IN.passes_every_check(event_made_first);
}

#[test]
fn the_starter_is_right_and_waits_on_the_cpu() {
    assert!(
        STAND_IN
            .run(starter, "output_is_the_layer_of_the_upload")
            .passed()
    );
    STAND_IN.fails(starter, "the_cpu_never_waits", "starter_waits");
    STAND_IN.fails(starter, "an_event_orders_the_streams", "starter_order");
}

#[test]
fn every_cpu_wait_is_named_by_its_kind() {
    STAND_IN.fails(
        event_synchronize,
        "the_cpu_never_waits",
        "event_synchronize",
    );
    STAND_IN.fails(
        device_synchronize,
        "the_cpu_never_waits",
        "device_synchronize",
    );
    STAND_IN.fails(reads_y_back, "the_cpu_never_waits", "reads_y_back");
    STAND_IN.fails(
        polls_the_producer,
        "the_cpu_never_waits",
        "polls_the_producer",
    );
    assert!(
        STAND_IN
            .run(reads_y_back, "an_event_orders_the_streams")
            .passed()
    );
}

#[test]
fn a_wait_for_the_consumer_stream_is_named_by_where_it_is() {
    STAND_IN.fails(
        synchronizes_the_consumer,
        "the_cpu_never_waits",
        "synchronizes_the_consumer",
    );
    STAND_IN.fails(
        synchronizes_the_consumer,
        "an_event_orders_the_streams",
        "synchronizes_the_consumer_order",
    );
    STAND_IN.fails(
        synchronizes_the_consumer_at_the_end,
        "the_cpu_never_waits",
        "synchronizes_the_consumer_at_the_end",
    );
    assert!(
        STAND_IN
            .run(
                synchronizes_the_consumer_at_the_end,
                "an_event_orders_the_streams"
            )
            .passed()
    );
}

#[test]
fn an_order_that_orders_nothing_is_named_by_the_race() {
    for (wrong, name) in [
        (no_order as Handoff, "no_order"),
        (record_before_upload, "record_before_upload"),
        (record_on_consumer, "record_on_consumer"),
        (wait_on_producer, "wait_on_producer"),
        (wait_after_layer, "wait_after_layer"),
        (wait_unrecorded, "wait_unrecorded"),
        (wait_before_record, "wait_before_record"),
        (record_without_wait, "record_without_wait"),
        (layer_on_producer, "layer_on_producer"),
    ] {
        STAND_IN.fails(
            wrong,
            "output_is_the_layer_of_the_upload",
            &format!("{name}_output"),
        );
        STAND_IN.fails(wrong, "an_event_orders_the_streams", name);
        assert!(
            STAND_IN.run(wrong, "the_cpu_never_waits").passed(),
            "{name}"
        );
    }
}

#[test]
fn work_on_the_wrong_stream_or_missing_is_named() {
    STAND_IN.fails(
        upload_on_consumer,
        "an_event_orders_the_streams",
        "upload_on_consumer",
    );
    assert!(
        STAND_IN
            .run(upload_on_consumer, "output_is_the_layer_of_the_upload")
            .passed()
    );
    STAND_IN.fails(no_upload, "an_event_orders_the_streams", "no_upload");
    STAND_IN.fails(
        no_upload,
        "output_is_the_layer_of_the_upload",
        "no_upload_output",
    );
    STAND_IN.fails(no_layer, "an_event_orders_the_streams", "no_layer");
    STAND_IN.fails(
        no_layer,
        "output_is_the_layer_of_the_upload",
        "no_layer_output",
    );
    STAND_IN.fails(
        wrong_layer,
        "output_is_the_layer_of_the_upload",
        "wrong_layer",
    );
}

#[test]
fn a_right_output_with_a_race_is_told_it_was_timing() {
    let run = STAND_IN.with(no_order, || {
        super::support::run(&Ctx::new(Backend::Virtual))
    });
    let mut run = run.expect("the unordered handoff runs");
    assert!(!run.races.is_empty(), "the unordered handoff races");
    // As a real GPU may leave it when the upload happens to finish first.
    run.y = run
        .batch
        .iter()
        .map(|&x| super::support::layer(x))
        .collect();
    let failure = super::output::outputs(&run).expect_err("a race fails the check");
    let _snapshots = crate::tests::snapshots(111).bind_to_scope();
    insta::assert_snapshot!(
        "right_by_timing",
        crate::tests::render(
            &failure.expected,
            &failure.actual,
            failure.site,
            failure.detail.as_deref()
        )
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
