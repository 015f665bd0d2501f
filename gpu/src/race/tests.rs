//! Unit tests of `race`.
use super::*;

const A: StreamId = StreamId(1);
const B: StreamId = StreamId(2);

fn site(line: u32) -> CallSite {
    CallSite {
        file: "test.rs",
        line,
        column: 1,
    }
}

fn range(addr: u64, bytes: u64, write: bool) -> Range {
    Range { addr, bytes, write }
}

#[test]
fn unordered_write_after_read_on_another_stream_is_a_race() {
    let mut rc = RaceChecker::default();
    rc.on_stream_op(A, &[range(0, 100, false)], "reader", site(1));
    rc.on_stream_op(B, &[range(50, 100, true)], "writer", site(2));
    let [report] = rc.reports() else {
        panic!("{:?}", rc.reports())
    };
    assert_eq!((report.addr, report.bytes), (50, 50), "only the overlap");
    assert_eq!(report.previous.site, site(1));
    assert_eq!(report.current.site, site(2));
}

#[test]
fn reads_never_race_with_reads() {
    let mut rc = RaceChecker::default();
    rc.on_stream_op(A, &[range(0, 100, false)], "r1", site(1));
    rc.on_stream_op(B, &[range(0, 100, false)], "r2", site(2));
    assert!(rc.reports().is_empty());
}

#[test]
fn an_event_wait_orders_the_streams() {
    let mut rc = RaceChecker::default();
    rc.on_stream_op(A, &[range(0, 8, true)], "w", site(1));
    rc.on_record(EventId(0), A);
    rc.on_wait(B, EventId(0));
    rc.on_stream_op(B, &[range(0, 8, false)], "r", site(2));
    assert!(rc.reports().is_empty());
    rc.on_stream_op(A, &[range(0, 8, true)], "w2", site(3));
    assert_eq!(
        rc.reports().len(),
        1,
        "A's second write is not ordered after B's read"
    );
}

#[test]
fn a_record_before_the_write_does_not_order_it() {
    let mut rc = RaceChecker::default();
    rc.on_record(EventId(0), A);
    rc.on_stream_op(A, &[range(0, 8, true)], "w", site(1));
    rc.on_wait(B, EventId(0));
    rc.on_stream_op(B, &[range(0, 8, false)], "r", site(2));
    assert_eq!(rc.reports().len(), 1);
}

#[test]
fn the_cpu_is_ordered_by_synchronizing() {
    let mut rc = RaceChecker::default();
    rc.on_stream_op(A, &[range(HOST_BASE, 8, true)], "d2h", site(1));
    rc.on_stream_done(A);
    rc.on_cpu_access(&[range(HOST_BASE, 8, false)], "read", site(2));
    assert!(rc.reports().is_empty());
    rc.on_stream_op(A, &[range(HOST_BASE, 8, true)], "d2h", site(3));
    rc.on_cpu_access(&[range(HOST_BASE, 8, false)], "read", site(4));
    assert!(rc.reports()[0].host);
    assert_eq!(rc.reports()[0].current.actor, Actor::Cpu);
}

#[test]
fn work_queued_after_a_cpu_access_is_ordered_after_it() {
    let mut rc = RaceChecker::default();
    rc.on_cpu_access(&[range(HOST_BASE, 8, true)], "write", site(1));
    rc.on_stream_op(A, &[range(HOST_BASE, 8, false)], "h2d", site(2));
    assert!(rc.reports().is_empty());
}

#[test]
fn reuse_after_free_names_the_free() {
    let mut rc = RaceChecker::default();
    rc.on_stream_op(B, &[range(0, 64, false)], "slow reader", site(1));
    rc.on_free(Some(A), (0, 64), site(2), None);
    assert_eq!(rc.take_reports()[0].kind, RaceKind::UnorderedFree);
    rc.on_stream_op(A, &[range(0, 64, true)], "new owner", site(3));
    let report = &rc.reports()[0];
    assert_eq!(report.kind, RaceKind::ReuseAfterFree);
    assert_eq!(report.freed_at, Some(site(2)));
    // The new owner's write replaced the history: the race is reported
    // once, at the first conflicting access, as CSAN does.
    rc.on_stream_op(A, &[range(0, 64, true)], "again", site(4));
    assert_eq!(rc.reports().len(), 1);
    rc.on_stream_op(B, &[range(0, 64, false)], "B reads the new data", site(5));
    assert_eq!(
        rc.reports().len(),
        2,
        "unordered with the new owner's write"
    );
    assert_eq!(
        rc.reports()[1].kind,
        RaceKind::Unordered,
        "no longer a reuse"
    );
}

#[test]
fn the_same_pair_of_sites_is_reported_once() {
    let mut rc = RaceChecker::default();
    for _ in 0..3 {
        rc.on_stream_op(A, &[range(0, 8, true)], "w", site(1));
        rc.on_stream_op(B, &[range(0, 8, true)], "w", site(2));
    }
    assert_eq!(rc.reports().len(), 2, "B after A, then A after B");
}

#[test]
fn reuse_by_another_stream_of_memory_only_the_freer_used_is_no_race() {
    let mut rc = RaceChecker::default();
    rc.on_stream_op(A, &[range(0, 64, true)], "A writes", site(1));
    rc.on_free(Some(A), (0, 64), site(2), None);
    rc.on_stream_op(
        B,
        &[range(0, 64, true)],
        "B, the new owner, writes",
        site(3),
    );
    assert!(rc.reports().is_empty(), "{:?}", rc.reports());
}

#[test]
fn taking_the_reports_lets_a_repeated_race_be_reported_again() {
    let mut rc = RaceChecker::default();
    for _ in 0..2 {
        rc.on_stream_op(A, &[range(0, 8, true)], "w", site(1));
        rc.on_stream_op(B, &[range(0, 8, false)], "r", site(2));
        assert_eq!(rc.take_reports().len(), 1);
        rc.on_device_done();
    }
}

#[test]
fn a_free_not_ordered_after_another_streams_use_is_a_hazard_even_without_reuse() {
    let mut rc = RaceChecker::default();
    rc.on_stream_op(A, &[range(0, 64, true)], "A fills", site(1));
    rc.on_record(EventId(0), A);
    rc.on_wait(B, EventId(0));
    rc.on_stream_op(B, &[range(16, 16, false)], "B reads", site(2));
    rc.on_free(Some(A), (0, 64), site(3), Some(site(9)));
    let [report] = rc.reports() else {
        panic!("{:?}", rc.reports())
    };
    assert_eq!(report.kind, RaceKind::UnorderedFree);
    assert_eq!((report.addr, report.bytes), (16, 16), "the bytes B read");
    assert_eq!(report.previous.actor, Actor::Stream(B));
    assert_eq!(report.previous.site, site(2));
    assert_eq!(report.current.actor, Actor::Stream(A));
    assert_eq!(report.allocated_at, Some(site(9)));
    let text = report.to_string();
    assert!(
        text.starts_with("memory freed while another stream may still use it"),
        "{text}"
    );
    assert!(
        text.contains("the buffer allocated at test.rs:9:1, freed on stream 1 at test.rs:3:1"),
        "{text}"
    );
    assert!(
        text.contains(
            "the free at line 3 on stream 1 is not ordered after stream 2's read at line 2"
        ) && text.contains(
            "Before the free, make stream 1 wait for an event recorded on stream 2 after that read (`wait_event`)"
        ),
        "{text}"
    );
}

#[test]
fn a_free_ordered_after_every_use_raises_nothing() {
    // Ordered by an event: the freeing stream waits for the reader's.
    let mut rc = RaceChecker::default();
    rc.on_stream_op(B, &[range(0, 64, false)], "B reads", site(1));
    rc.on_record(EventId(0), B);
    rc.on_wait(A, EventId(0));
    rc.on_free(Some(A), (0, 64), site(2), None);
    // Ordered through the CPU: it synchronized the reader first.
    rc.on_stream_op(B, &[range(64, 64, false)], "B reads", site(3));
    rc.on_stream_done(B);
    rc.on_free(Some(A), (64, 64), site(4), None);
    // Used only by the freeing stream itself, or freed after waiting for
    // the device (`cuMemFree`).
    rc.on_stream_op(A, &[range(128, 64, true)], "A writes", site(5));
    rc.on_free(Some(A), (128, 64), site(6), None);
    rc.on_stream_op(B, &[range(192, 64, true)], "B writes", site(7));
    rc.on_device_done();
    rc.on_free(None, (192, 64), site(8), None);
    assert!(rc.reports().is_empty(), "{:?}", rc.reports());
}

#[test]
fn a_dropped_buffer_is_named_by_where_it_was_allocated() {
    let mut rc = RaceChecker::default();
    rc.on_stream_op(B, &[range(0, 8, false)], "B reads", site(1));
    let drop = CallSite::internal("drop of a DeviceBuffer");
    rc.on_free(Some(A), (0, 8), drop, Some(site(5)));
    let text = rc.reports()[0].to_string();
    assert!(
        text.contains("the buffer allocated at test.rs:5:1, dropped: freed on stream 1"),
        "{text}"
    );
}

#[test]
fn a_race_between_streams_names_the_missing_event_and_wait() {
    let mut rc = RaceChecker::default();
    rc.on_stream_op(A, &[range(0, 8, false)], "kernel `sum_f32`", site(33));
    rc.on_stream_op(B, &[range(0, 8, true)], "kernel `fill_f32`", site(39));
    let text = rc.reports()[0].to_string();
    assert!(
        text.ends_with(
            "nothing orders the two: record an event on stream 1 after its read at line 33 and make stream 2 wait for it (`wait_event`) before its write at line 39"
        ),
        "{text}"
    );
}

#[test]
fn a_cpu_read_too_early_names_the_event_the_cpu_must_wait_for() {
    let mut rc = RaceChecker::default();
    rc.on_stream_op(
        A,
        &[range(HOST_BASE, 8, true)],
        "copy device to pinned",
        site(7),
    );
    rc.on_cpu_access(&[range(HOST_BASE, 8, false)], "read", site(9));
    let text = rc.reports()[0].to_string();
    assert!(
        text.ends_with(
            "record an event on stream 1 after its write at line 7 and make the CPU wait for it (`Event::synchronize`) before its read at line 9"
        ),
        "{text}"
    );
}

#[test]
fn a_cpu_write_under_a_copy_offers_another_buffer_too() {
    let mut rc = RaceChecker::default();
    rc.on_stream_op(
        A,
        &[range(HOST_BASE, 8, false)],
        "copy pinned to device",
        site(7),
    );
    rc.on_cpu_access(&[range(HOST_BASE, 8, true)], "write", site(9));
    let text = rc.reports()[0].to_string();
    assert!(
        text.contains("before its write at line 9, or let the CPU write another buffer while that copy still reads this one"),
        "{text}"
    );
}

#[test]
fn a_reuse_names_the_free_and_the_use_it_is_not_ordered_after() {
    let mut rc = RaceChecker::default();
    rc.on_stream_op(B, &[range(0, 64, false)], "slow reader", site(4));
    rc.on_free(Some(A), (0, 64), site(6), None);
    rc.take_reports();
    rc.on_stream_op(A, &[range(0, 64, true)], "new owner", site(8));
    let report = &rc.reports()[0];
    assert_eq!(report.freed_by, Some(Actor::Stream(A)));
    let text = report.to_string();
    assert!(
        text.contains("freed at test.rs:6:1 on stream 1 and handed out again")
            && text.ends_with(
                "nothing orders the two: the free at line 6 on stream 1 is not ordered after stream 2's read at line 4: before the free, make stream 1 wait for an event recorded on stream 2 after that read (`wait_event`), or call `record_stream`"
            ),
        "{text}"
    );
}

#[test]
fn a_site_in_another_file_is_named_with_its_file() {
    let mut rc = RaceChecker::default();
    let elsewhere = CallSite {
        file: "other.rs",
        line: 12,
        column: 3,
    };
    rc.on_stream_op(A, &[range(0, 8, true)], "w", elsewhere);
    rc.on_stream_op(B, &[range(0, 8, true)], "w", site(5));
    let text = rc.reports()[0].to_string();
    assert!(
        text.contains("after its write at other.rs:12 and make stream 2 wait for it (`wait_event`) before its write at test.rs:5"),
        "{text}"
    );
}
