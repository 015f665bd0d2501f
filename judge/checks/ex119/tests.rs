//! The suite's own tests: the solution passes every check under the
//! course's seed and many others, and so does another right reading;
//! every call runs as the judge built it on the virtual GPU; every run
//! holds every situation the checks need; two seeds give different steps;
//! each known-wrong `waits` of `wrong.rs` fails the check that names its
//! cause, with the message in a snapshot (`snapshots/NAME.snap`); a table
//! of answers made with the course's seed fails under another. (Over 400
//! lines: one test per wrong reading, each a few lines, side by side.)

use super::clock::{graded, read_late, same_when_read_late};
use super::draw::steps;
use super::runner::{Run, Traced, run};
use super::scenes::{Beat, Probe};
use super::speed::{Speed, drawn, same_at_any_speed};
use super::verdict::{Waits, answers, found, in_order, kinds, only_waits};
use super::wrong::*;
use crate::tests::StandIn;
use find_the_wait::{Wait, WaitKind};
use gpu::{Backend, OpKind};
use judge_harness::{COURSE_SEED, Ctx};
use std::cell::Cell;
use std::rc::Rc;

thread_local! {
    /// The `waits` the checks ask instead of the solution's.
    static REPLACEMENT: Cell<Option<Waits>> = const { Cell::new(None) };
}

/// What the suite's tests put in place of the solution's `waits`.
static STAND_IN: StandIn<Waits> = StandIn::new(119, &REPLACEMENT);

/// The `waits` a test put in place of the solution's, if any.
pub(super) fn replacement() -> Option<Waits> {
    STAND_IN.get()
}

fn run_of(seed: u64) -> Rc<Run> {
    run(&Ctx::new(Backend::Virtual).with_seed(Some(seed))).expect("the steps run")
}

/// Whether `waits` passes every check on `run`.
fn passes(run: &Run, waits: Waits) -> bool {
    let said = answers(run, waits);
    found(run, &said).is_ok()
        && only_waits(run, &said).is_ok()
        && kinds(run, &said).is_ok()
        && in_order(run, &said).is_ok()
        && same_at_any_speed(run, &said, waits).is_ok()
        && same_when_read_late(run, &said, waits).is_ok()
}

const SEEDS: [u64; 13] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, COURSE_SEED];

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(119);
}

#[test]
fn every_call_runs_as_built_and_the_solution_passes_under_many_seeds() {
    for seed in SEEDS {
        let run = run_of(seed);
        for step in &run.steps {
            assert_eq!(step.calls.len(), step.trace.entries.len(), "seed {seed}");
            for call in &step.calls {
                assert!(call.foreseen, "seed {seed}: step {}: {call:?}", step.number);
            }
            assert!(step.trace.entries.iter().all(|e| e.blocking.is_none()));
        }
        assert!(passes(&run, find_the_wait::waits), "seed {seed}");
        assert!(passes(&run, from_the_gpu_ends), "seed {seed}");
    }
}

/// Whether some call of `run` is a `op` whose truth is `waits`.
fn holds(run: &Run, op: OpKind, waits: Option<WaitKind>) -> bool {
    run.steps.iter().any(|step| {
        step.calls.iter().any(|c| {
            let entry = step.trace.entries.iter().find(|e| e.seq == c.seq).unwrap();
            entry.op == op && c.waits == waits
        })
    })
}

/// Whether some host work of `step` covers the end of GPU work.
fn host_work_covers_a_gpu_end(step: &Traced) -> bool {
    let entries = &step.trace.entries;
    entries
        .iter()
        .filter(|e| e.op == OpKind::HostWork)
        .any(|h| {
            entries
                .iter()
                .filter_map(|e| e.gpu)
                .any(|g| g.end_ns > h.cpu_start_ns && g.end_ns < h.cpu_end_ns)
        })
}

#[test]
fn every_run_holds_every_situation_the_checks_need() {
    use OpKind::*;
    let every = [
        (StreamSynchronize, Some(WaitKind::Synchronize)),
        (EventSynchronize, Some(WaitKind::Synchronize)),
        (DeviceSynchronize, Some(WaitKind::Synchronize)),
        (EventElapsed, Some(WaitKind::ElapsedTime)),
        (CopyDeviceToHost, Some(WaitKind::PageableDownload)),
        (CopyHostToDevice, Some(WaitKind::PageableUpload)),
        (FreeSegment, Some(WaitKind::RawFree)),
        (FreePinned, Some(WaitKind::RawFree)),
        (StreamSynchronize, None),
        (EventSynchronize, None),
        (DeviceSynchronize, None),
        (EventElapsed, None),
        (CopyDeviceToHost, None),
        (CopyHostToDevice, None),
        (FreeSegment, None),
        (FreePinned, None),
        (AllocPinned, None),
        (AllocSegment, None),
        (EventQuery, None),
    ];
    for seed in SEEDS {
        let run = run_of(seed);
        for (op, waits) in every {
            assert!(
                holds(&run, op, waits),
                "seed {seed} has no {op:?} with {waits:?}"
            );
        }
        for step in &run.steps {
            assert!(
                step.waits().count() >= 3,
                "seed {seed} step {}",
                step.number
            );
        }
        assert!(
            run.steps.iter().any(host_work_covers_a_gpu_end),
            "seed {seed}"
        );
        assert!(
            run.steps.iter().any(ends_soon_after_a_call_that_can_wait),
            "seed {seed}"
        );
        assert!(
            run.steps.iter().any(ends_as_a_call_that_can_wait_begins),
            "seed {seed}"
        );
    }
}

/// The graded calls of `step` that can wait and did not, with their entries.
fn no_waits(step: &Traced) -> impl Iterator<Item = &gpu::TraceEntry> {
    step.calls
        .iter()
        .filter(|c| c.foreseen && c.waits.is_none())
        .map(|c| step.trace.entries.iter().find(|e| e.seq == c.seq).unwrap())
        .filter(|e| super::words::kind_of(e.op).is_some())
}

/// The GPU ends of the entries of `step` before `e`.
fn ends_before<'s>(step: &'s Traced, e: &gpu::TraceEntry) -> impl Iterator<Item = u64> + 's {
    let seq = e.seq;
    step.trace
        .entries
        .iter()
        .filter(move |g| g.seq < seq)
        .filter_map(|g| g.gpu.map(|s| s.end_ns))
}

/// Whether GPU work of `step` ends after a call that can wait and did not
/// returned, by more than a tenth of its time but less than three times it.
fn ends_soon_after_a_call_that_can_wait(step: &Traced) -> bool {
    no_waits(step).any(|e| {
        ends_before(step, e)
            .any(|t| t > e.cpu_end_ns + e.cpu_ns() / 10 && t < e.cpu_end_ns + 3 * e.cpu_ns())
    })
}

/// Whether GPU work of `step` ends exactly as a call that can wait, and
/// did not, begins.
fn ends_as_a_call_that_can_wait_begins(step: &Traced) -> bool {
    no_waits(step).any(|e| ends_before(step, e).any(|t| t == e.cpu_start_ns))
}

#[test]
fn read_late_every_wait_stays_graded_and_some_ends_after_its_return() {
    for seed in SEEDS {
        let run = run_of(seed);
        let mut after = false;
        for step in &run.steps {
            let late = read_late(step);
            for c in step.waits() {
                assert!(graded(&late, c), "seed {seed} step {}: {c:?}", step.number);
                let e = late.trace.entries.iter().find(|e| e.seq == c.seq).unwrap();
                let own = step.trace.entries.iter().find(|e| e.seq == c.seq).unwrap();
                assert!(own.cpu_ns() / 10 > super::clock::shift(step));
                after |= ends_before(&late, e).any(|t| t > e.cpu_end_ns && t > e.cpu_start_ns);
            }
            let left = step
                .calls
                .iter()
                .filter(|c| c.foreseen && !graded(&late, c))
                .count();
            assert!(
                left <= 1,
                "seed {seed} step {}: {left} left out",
                step.number
            );
        }
        assert!(
            after,
            "seed {seed}: no wait's GPU end reads after its return"
        );
    }
}

#[test]
fn every_beat_comes_once_per_run_and_two_seeds_give_different_steps() {
    let beats = |seed| steps(seed).concat();
    let all = beats(COURSE_SEED);
    for probe in [Probe::SyncStream, Probe::ToVec, Probe::FreePinned] {
        let waits = all
            .iter()
            .filter(|b| matches!(b, Beat::Waits { probe: p, .. } if *p == probe));
        assert_eq!(waits.count(), 1);
    }
    assert_eq!(
        all.iter()
            .filter(|b| matches!(b, Beat::DecodeLoop { .. }))
            .count(),
        1
    );
    assert_eq!(beats(7), beats(7), "a seed gives its steps every time");
    assert_ne!(beats(7), beats(8));
    assert_ne!(beats(COURSE_SEED), beats(0x1234_5678));
}

#[test]
fn a_step_drawn_faster_or_slower_keeps_its_order_and_scales_every_time() {
    let run = run_of(COURSE_SEED);
    let trace = &run.steps[0].trace;
    let origin = trace.entries[0].cpu_start_ns;
    for (speed, scale) in [(Speed::Faster, 1.0 / 50.0), (Speed::Slower, 50.0)] {
        let other = drawn(trace, speed);
        for (a, b) in trace.entries.iter().zip(&other.entries) {
            assert_eq!((a.seq, a.op), (b.seq, b.op));
            let expected = (a.cpu_end_ns - origin) as f64 * scale;
            assert!(((b.cpu_end_ns - origin) as f64 - expected).abs() <= 1.0);
        }
        assert_eq!(
            find_the_wait::waits(&other),
            find_the_wait::waits(trace),
            "{speed:?}"
        );
    }
}

#[test]
fn another_right_reading_passes_every_check_too() {
    STAND_IN.passes_every_check(from_the_gpu_ends);
}

#[test]
fn a_missed_wait_is_named_by_its_cause() {
    for (wrong, name) in [
        (reads_blocking as Waits, "reads_blocking"),
        (only_the_first, "only_the_first"),
        (no_pageable_download, "no_pageable_download"),
        (free_pinned_forgotten, "free_pinned_forgotten"),
        (uploads_never_wait, "uploads_never_wait"),
        (reports_the_work_waited_for, "reports_the_work_waited_for"),
        (positions, "positions"),
    ] {
        STAND_IN.fails(wrong, "finds_every_wait", name);
    }
}

#[test]
fn a_call_that_did_not_wait_is_named_by_its_cause() {
    for (wrong, name) in [
        (by_kind_alone as Waits, "by_kind_alone"),
        (host_work_counted, "host_work_counted"),
        (busy_when_it_began, "busy_when_it_began"),
        (own_work_counted, "own_work_counted"),
        (ten_times_the_shortest, "ten_times_the_shortest"),
        (ten_times_the_call_as_slack, "ten_times_the_call_as_slack"),
        (an_end_at_the_start_counted, "an_end_at_the_start_counted"),
        (
            reports_the_work_waited_for,
            "reports_the_work_waited_for_no_wait",
        ),
        (positions, "positions_no_wait"),
    ] {
        STAND_IN.fails(wrong, "reports_no_call_that_did_not_wait", name);
    }
    for wrong in [
        by_kind_alone as Waits,
        host_work_counted,
        busy_when_it_began,
        ten_times_the_call_as_slack,
        an_end_at_the_start_counted,
    ] {
        STAND_IN.passes(wrong, "finds_every_wait");
    }
}

#[test]
fn a_wait_named_wrong_is_told_its_kind() {
    STAND_IN.fails(
        download_named_synchronize,
        "names_each_wait",
        "download_named_synchronize",
    );
    STAND_IN.fails(
        elapsed_named_synchronize,
        "names_each_wait",
        "elapsed_named_synchronize",
    );
    for wrong in [
        download_named_synchronize as Waits,
        elapsed_named_synchronize,
    ] {
        STAND_IN.passes(wrong, "finds_every_wait");
        STAND_IN.passes(wrong, "reports_no_call_that_did_not_wait");
    }
}

#[test]
fn a_wait_reported_twice_or_out_of_order_is_named() {
    STAND_IN.fails(
        once_per_gpu_end,
        "each_wait_once_in_trace_order",
        "once_per_gpu_end",
    );
    STAND_IN.fails(
        grouped_by_kind,
        "each_wait_once_in_trace_order",
        "grouped_by_kind",
    );
    for wrong in [once_per_gpu_end as Waits, grouped_by_kind] {
        STAND_IN.passes(wrong, "finds_every_wait");
        STAND_IN.passes(wrong, "reports_no_call_that_did_not_wait");
        STAND_IN.passes(wrong, "names_each_wait");
    }
}

#[test]
fn a_fixed_number_of_microseconds_fails_on_a_faster_or_slower_device() {
    for (wrong, name) in [
        (fixed_slack as Waits, "fixed_slack"),
        (noise_floor_of_20_us, "noise_floor_of_20_us"),
        (longer_than_100_us, "longer_than_100_us"),
    ] {
        STAND_IN.fails(wrong, "same_waits_on_a_faster_or_slower_device", name);
    }
    for wrong in [fixed_slack as Waits, noise_floor_of_20_us] {
        STAND_IN.passes(wrong, "finds_every_wait");
    }
    // 50 µs is also many times a quick call's time: the synchronize that
    // returns just before the other stream's kernel ends is no wait.
    STAND_IN.passes(noise_floor_of_20_us, "reports_no_call_that_did_not_wait");
    assert!(
        !STAND_IN
            .run(fixed_slack, "reports_no_call_that_did_not_wait")
            .passed()
    );
}

#[test]
fn no_slack_fails_with_the_gpu_times_read_late() {
    STAND_IN.fails(
        no_slack,
        "same_waits_with_the_gpu_times_read_late",
        "no_slack",
    );
    for check in [
        "finds_every_wait",
        "reports_no_call_that_did_not_wait",
        "names_each_wait",
        "same_waits_on_a_faster_or_slower_device",
    ] {
        STAND_IN.passes(no_slack, check);
    }
}

/// The course seed's answers, as a table a learner could copy from
/// `judge run 119`.
fn table() -> Vec<Vec<Wait>> {
    answers(&run_of(COURSE_SEED), find_the_wait::waits)
}

#[test]
fn a_table_of_the_course_seeds_answers_fails_under_another_seed() {
    let course = table();
    let run = run_of(0x1234_5678);
    assert!(found(&run, &course).is_err() || only_waits(&run, &course).is_err());
}

#[test]
fn a_call_left_out_is_neither_required_nor_forbidden() {
    let run = run_of(COURSE_SEED);
    let mut left = (*run).clone();
    let step = &mut left.steps[0];
    let first = step.waits().next().unwrap().seq;
    step.calls
        .iter_mut()
        .find(|c| c.seq == first)
        .unwrap()
        .foreseen = false;
    let said: Vec<Vec<Wait>> = answers(&left, find_the_wait::waits)
        .into_iter()
        .map(|mut s| {
            s.retain(|w| w.seq != first);
            s
        })
        .collect();
    assert!(found(&left, &said).is_ok());
    let mut with = said.clone();
    let kind = WaitKind::RawFree;
    with[0].push(Wait { seq: first, kind });
    with[0].sort_by_key(|w| w.seq);
    assert!(only_waits(&left, &with).is_ok() && kinds(&left, &with).is_ok());
}
