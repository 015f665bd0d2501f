//! An ordering between two streams that was tried and missed: the one rule
//! about events that the suites with two streams share (104's and 106's
//! race reports read it from the trace).
//!
//! A race between two streams says which ordering is missing: an event
//! recorded on the first stream after its access, waited for by the second
//! before its own. A learner who wrote the events and the waits but put
//! one of them in the wrong place is told more by what went wrong than by
//! that rule again. [`missed_order`] reads the calls queued between the two
//! accesses and names the misplaced call when the trace shows one:
//!
//! * the wait is on the wrong stream: no `wait_event` on the stream of the
//!   later access, but one on the stream of the earlier access, for an
//!   event of its own (`copy.wait_event(&copied)` where the compute stream
//!   must wait): `wait_event` makes the stream it is called on wait;
//! * the event is recorded on the wrong stream: the later stream waited,
//!   but the last event recorded before that wait is its own or a third
//!   stream's, not the earlier access's stream;
//! * the event is recorded too early: the later stream waited after the
//!   earlier stream's last event, but that event was recorded before the
//!   earlier access was queued, so it completes without it.
//!
//! The trace does not name the event a wait waits for, so each reason is
//! read from the events recorded just before the wait, and said as what the
//! trace shows ("the last event recorded before that wait").

use gpu::{AccessRecord, Actor, OpKind, RaceKind, RaceReport, StreamId, TraceEntry};

/// Why the ordering a race between two streams lacks was missed, when the
/// calls between the two accesses (`entries`, the device's trace in call
/// order) show a misplaced `wait_event` or event record; `None` when they
/// show none (nothing was tried, or the trace cannot tell).
pub fn missed_order(entries: &[TraceEntry], race: &RaceReport) -> Option<String> {
    let (Actor::Stream(first), Actor::Stream(then)) = (race.previous.actor, race.current.actor)
    else {
        return None;
    };
    if first == then {
        return None;
    }
    let at = |e: &TraceEntry, stream: StreamId, record: &AccessRecord| {
        e.stream == Some(stream) && e.site == record.site
    };
    let (earlier, later) = match race.kind {
        RaceKind::Unordered => {
            let later = entries.iter().find(|e| {
                at(e, then, &race.current)
                    && entries
                        .iter()
                        .take_while(|p| p.seq < e.seq)
                        .any(|p| at(p, first, &race.previous))
            })?;
            let earlier = entries
                .iter()
                .take_while(|p| p.seq < later.seq)
                .filter(|p| at(p, first, &race.previous))
                .last()?;
            (earlier, later)
        }
        RaceKind::UnorderedFree => {
            let earlier = entries.iter().find(|e| at(e, first, &race.previous))?;
            let later = entries
                .iter()
                .find(|e| e.seq > earlier.seq && e.op == OpKind::Free && e.stream == Some(then))?;
            (earlier, later)
        }
        RaceKind::ReuseAfterFree => return None,
    };
    let between: Vec<&TraceEntry> = entries
        .iter()
        .filter(|e| e.seq > earlier.seq && e.seq < later.seq)
        .collect();
    let waits_on = |stream: StreamId| {
        between
            .iter()
            .copied()
            .filter(move |e| e.op == OpKind::StreamWaitEvent && e.stream == Some(stream))
    };
    let last_record_before = |wait: &TraceEntry| {
        entries
            .iter()
            .take_while(|e| e.seq < wait.seq)
            .filter(|e| e.op == OpKind::EventRecord)
            .last()
    };
    let access = noun(&race.previous);
    let after = match race.kind {
        RaceKind::UnorderedFree => "free",
        _ => noun(&race.current),
    };
    let line = |e: &TraceEntry| e.site.line;
    let Some(wait) = waits_on(then).next_back() else {
        let wait = waits_on(first)
            .rfind(|w| last_record_before(w).is_some_and(|r| r.stream == Some(first)))?;
        let record = last_record_before(wait)?;
        return Some(format!(
            "the wait between the two is on the wrong stream: stream {first} waited at line {} (after an event recorded on stream {first} itself, at line {}), but `wait_event` makes the stream it is called on wait, so stream {then}'s {after} was never ordered after stream {first}'s {access} at line {}; call `wait_event` on stream {then}",
            line(wait),
            line(record),
            line(earlier),
        ));
    };
    let record = last_record_before(wait)?;
    match record.stream {
        Some(stream) if stream != first => Some(format!(
            "the event is recorded on the wrong stream: stream {then} waited at line {}, but the last event recorded before that wait was recorded on stream {stream} (line {}), not on stream {first}, and an event marks only the work of the stream it is recorded on; record it on stream {first} after its {access} at line {}",
            line(wait),
            line(record),
            line(earlier),
        )),
        Some(_) if record.seq < earlier.seq => Some(format!(
            "the event is recorded too early: stream {then} waited at line {}, but the last event stream {first} recorded before that wait (line {}) was queued before its {access} at line {}, and an event completes once the work queued before it is done; record it after the {access}",
            line(wait),
            line(record),
            line(earlier),
        )),
        _ => None,
    }
}

/// "read" or "write".
fn noun(record: &AccessRecord) -> &'static str {
    if record.write { "write" } else { "read" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu::{Backend, Device};

    /// How the step's stream is (or is not) ordered after the copy.
    #[derive(Clone, Copy)]
    enum Order {
        /// An event recorded on the copy stream after the copy, waited for
        /// by the compute stream.
        Right,
        /// The same event, waited for by the copy stream itself.
        WaitOnTheCopyStream,
        /// An event recorded on the copy stream before the copy.
        RecordedBeforeTheCopy,
        /// An event recorded on the compute stream.
        RecordedOnTheComputeStream,
        /// No event, no wait.
        None,
    }

    /// The first race of a copy into a buffer on one stream and a step
    /// reading it on another, ordered as `order` says, and what
    /// [`missed_order`] makes of it.
    fn missed(order: Order) -> Option<(RaceReport, Option<String>)> {
        let device = Device::open(Backend::Virtual).unwrap();
        let (copy, compute) = (device.new_stream().unwrap(), device.new_stream().unwrap());
        let host = device.alloc_pinned::<f32>(256).unwrap();
        let batch = copy.alloc_zeros::<f32>(256).unwrap();
        let out = compute.alloc_zeros::<f32>(1).unwrap();
        let early =
            matches!(order, Order::RecordedBeforeTheCopy).then(|| copy.record_event().unwrap());
        copy.copy_from_pinned(&host, &batch).unwrap();
        match order {
            Order::Right => compute.wait_event(&copy.record_event().unwrap()).unwrap(),
            Order::WaitOnTheCopyStream => copy.wait_event(&copy.record_event().unwrap()).unwrap(),
            Order::RecordedBeforeTheCopy => compute.wait_event(&early.unwrap()).unwrap(),
            Order::RecordedOnTheComputeStream => {
                compute
                    .wait_event(&compute.record_event().unwrap())
                    .unwrap();
            }
            Order::None => {}
        }
        compute.sum(&batch, &out).unwrap();
        device.synchronize().unwrap();
        let race = device.races().into_iter().next()?;
        let why = missed_order(&device.trace().entries, &race);
        Some((race, why))
    }

    #[test]
    fn a_right_order_has_no_race() {
        assert!(missed(Order::Right).is_none());
    }

    #[test]
    fn a_wait_on_the_writers_stream_is_named() {
        let (_, why) = missed(Order::WaitOnTheCopyStream).expect("a race");
        let why = why.expect("a reason");
        assert!(
            why.contains("the wait between the two is on the wrong stream"),
            "{why}"
        );
        assert!(why.contains("call `wait_event` on stream 2"), "{why}");
    }

    #[test]
    fn an_event_recorded_before_the_write_is_named() {
        let (_, why) = missed(Order::RecordedBeforeTheCopy).expect("a race");
        let why = why.expect("a reason");
        assert!(why.contains("the event is recorded too early"), "{why}");
    }

    #[test]
    fn an_event_of_the_waiting_stream_is_named() {
        let (_, why) = missed(Order::RecordedOnTheComputeStream).expect("a race");
        let why = why.expect("a reason");
        assert!(
            why.contains("the event is recorded on the wrong stream"),
            "{why}"
        );
        assert!(why.contains("recorded on stream 2"), "{why}");
    }

    #[test]
    fn no_wait_at_all_is_left_to_the_race_report() {
        let (_, why) = missed(Order::None).expect("a race");
        assert_eq!(why, None);
    }
}
