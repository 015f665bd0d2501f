//! The suite's own tests: the solution passes every check, and so does
//! another right way (an event made first, recorded later); each
//! known-wrong `handoff` of `wrong.rs` fails the check that names its
//! cause, with the message in a snapshot (`snapshots/NAME.snap`).

use super::support::Handoff;
use super::wrong::*;
use gpu::Backend;
use judge_harness::{Ctx, Outcome};
use std::cell::Cell;

thread_local! {
    /// The `handoff` the checks run instead of the solution's.
    static REPLACEMENT: Cell<Option<Handoff>> = const { Cell::new(None) };
}

/// The `handoff` a test put in place of the solution's, if any.
pub(super) fn replacement() -> Option<Handoff> {
    REPLACEMENT.with(Cell::get)
}

/// Runs check `name` with `new` in place of the solution's `handoff`.
fn run_with(new: Handoff, name: &str) -> Outcome {
    REPLACEMENT.with(|r| r.set(Some(new)));
    let (outcome, _) = crate::tests::run(111, name, None);
    REPLACEMENT.with(|r| r.set(None));
    outcome
}

/// A failure as the learner reads it, the call site reduced to its file.
fn render(
    expected: &str,
    actual: &str,
    site: Option<gpu::CallSite>,
    detail: Option<&str>,
) -> String {
    let site = site.map_or("none".into(), |s| {
        s.file.rsplit('/').next().unwrap_or(s.file).to_string()
    });
    let text = format!(
        "expected: {expected}\nactual:   {actual}\nsite:     {site}\ndetail:   {}\n",
        detail.unwrap_or("none")
    );
    without_lines(&text)
}

/// `text` with the line and column after each `wrong.rs:` and `support.rs:` and the number
/// after each `line ` replaced by `LINE`, so that a snapshot does not
/// change when that file does.
fn without_lines(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some((at, marker)) = ["wrong.rs:", "support.rs:", "line "]
        .iter()
        .filter_map(|m| rest.find(m).map(|at| (at, m.len())))
        .min()
    {
        let (head, tail) = rest.split_at(at + marker);
        out.push_str(head);
        let bytes = tail.as_bytes();
        let mut digits = 0;
        while digits < bytes.len()
            && (bytes[digits].is_ascii_digit()
                || (bytes[digits] == b':' && bytes.get(digits + 1).is_some_and(u8::is_ascii_digit)))
        {
            digits += 1;
        }
        if digits > 0 {
            out.push_str("LINE");
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

/// Asserts that check `name` fails with `new`, its message the
/// snapshot `snapshot`.
#[track_caller]
fn fails_with(new: Handoff, name: &str, snapshot: &str) {
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
    let _snapshots = crate::tests::snapshots(111).bind_to_scope();
    insta::assert_snapshot!(snapshot, render(expected, actual, *site, detail.as_deref()));
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(111);
}

#[test]
fn an_event_made_first_and_recorded_later_passes_every_check_too() {
    REPLACEMENT.with(|r| r.set(Some(event_made_first as Handoff)));
    crate::tests::passes_every_check(111);
    REPLACEMENT.with(|r| r.set(None));
}

#[test]
fn the_starter_is_right_and_waits_on_the_cpu() {
    assert!(run_with(starter, "output_is_the_layer_of_the_upload").passed());
    fails_with(starter, "the_cpu_never_waits", "starter_waits");
    fails_with(starter, "an_event_orders_the_streams", "starter_order");
}

#[test]
fn every_cpu_wait_is_named_by_its_kind() {
    fails_with(
        event_synchronize,
        "the_cpu_never_waits",
        "event_synchronize",
    );
    fails_with(
        device_synchronize,
        "the_cpu_never_waits",
        "device_synchronize",
    );
    fails_with(reads_y_back, "the_cpu_never_waits", "reads_y_back");
    fails_with(
        polls_the_producer,
        "the_cpu_never_waits",
        "polls_the_producer",
    );
    assert!(run_with(reads_y_back, "an_event_orders_the_streams").passed());
}

#[test]
fn a_wait_for_the_consumer_stream_is_named_by_where_it_is() {
    fails_with(
        synchronizes_the_consumer,
        "the_cpu_never_waits",
        "synchronizes_the_consumer",
    );
    fails_with(
        synchronizes_the_consumer,
        "an_event_orders_the_streams",
        "synchronizes_the_consumer_order",
    );
    fails_with(
        synchronizes_the_consumer_at_the_end,
        "the_cpu_never_waits",
        "synchronizes_the_consumer_at_the_end",
    );
    assert!(
        run_with(
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
        fails_with(
            wrong,
            "output_is_the_layer_of_the_upload",
            &format!("{name}_output"),
        );
        fails_with(wrong, "an_event_orders_the_streams", name);
        assert!(run_with(wrong, "the_cpu_never_waits").passed(), "{name}");
    }
}

#[test]
fn work_on_the_wrong_stream_or_missing_is_named() {
    fails_with(
        upload_on_consumer,
        "an_event_orders_the_streams",
        "upload_on_consumer",
    );
    assert!(run_with(upload_on_consumer, "output_is_the_layer_of_the_upload").passed());
    fails_with(no_upload, "an_event_orders_the_streams", "no_upload");
    fails_with(
        no_upload,
        "output_is_the_layer_of_the_upload",
        "no_upload_output",
    );
    fails_with(no_layer, "an_event_orders_the_streams", "no_layer");
    fails_with(
        no_layer,
        "output_is_the_layer_of_the_upload",
        "no_layer_output",
    );
    fails_with(
        wrong_layer,
        "output_is_the_layer_of_the_upload",
        "wrong_layer",
    );
}

#[test]
fn a_right_output_with_a_race_is_told_it_was_timing() {
    REPLACEMENT.with(|r| r.set(Some(no_order as Handoff)));
    let run = super::support::run(&Ctx::new(Backend::Virtual));
    REPLACEMENT.with(|r| r.set(None));
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
        render(
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
