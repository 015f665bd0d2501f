//! Pending blocks come back: once the stream that used a block has
//! finished, the next `malloc` of its size gets it; of several pending
//! blocks, each comes back when its own events have all completed, in
//! whatever order the streams finish.

use super::support::{Call, Held, MIB, N, SLOW, Session, describe, race_lines};
use gpu::OpKind;
use judge_harness::{Ctx, Failure};
use std::time::Duration;

/// A short reader: done long before any slow one.
const SHORT: Duration = Duration::from_micros(50);

/// What the first check expects, in words.
const EXPECTED: &str = "a pending block to come back from the next `malloc` of its size once the stream that used it has finished, with no new segment";

/// What the second check expects, in words.
const EXPECTED_ORDER: &str = "each pending block to come back once its own events have all completed, in whatever order its streams finish: the block of a finished stream at once, the block of a busy one (or of two streams, one busy) not yet";

pub(super) fn a_pending_block_comes_back(ctx: &Ctx) -> Result<(), Failure> {
    let mut s = Session::open(ctx, 1)?;
    let mut a = s.malloc("a", MIB)?;
    s.fill(&a, 1.0)?;
    s.record_stream(&mut a, "a", 1);
    let _reader = s.slow_read(1, &a, SHORT)?;
    let first = a.addr;
    s.free(a, "a")?;
    s.side[0].synchronize()?;
    let b = s.malloc("b", MIB)?;
    if b.addr == first && s.last().of(OpKind::AllocSegment).is_empty() {
        return two_done_at_once(ctx);
    }
    let whose = match free_events_problem(&s, "a", 1) {
        Some(problem) => format!("`a`, noted on side1, which had finished; but {problem}"),
        None => "`a`, whose only event, on side1, had completed".into(),
    };
    Err(not_back(
        EXPECTED,
        s.last(),
        "after side1 had finished (the judge waited for it), `b = malloc(1 MiB)`",
        &whose,
        &b,
        first,
    ))
}

/// Two pending blocks of different sizes, both done when the next
/// `malloc` asks: the one asked for second comes back in the same pass.
fn two_done_at_once(ctx: &Ctx) -> Result<(), Failure> {
    let mut s = Session::open(ctx, 1)?;
    let mut c = s.malloc("c", MIB)?;
    let mut d = s.malloc("d", 2 * MIB)?;
    s.fill(&c, 1.0)?;
    s.fill(&d, 1.0)?;
    s.record_stream(&mut c, "c", 1);
    s.record_stream(&mut d, "d", 1);
    let _read_c = s.slow_read(1, &c, SHORT)?;
    let _read_d = s.slow_read(1, &d, SHORT)?;
    let want = d.addr;
    s.free(c, "c")?;
    s.free(d, "d")?;
    s.side[0].synchronize()?;
    let e = s.malloc("e", 2 * MIB)?;
    let call = s.last();
    if e.addr == want && call.of(OpKind::AllocSegment).is_empty() {
        return Ok(());
    }
    let queries = call.of(OpKind::EventQuery).len();
    if queries < 2 {
        let failure = Failure::new(
            EXPECTED,
            format!(
                "with `c` (1 MiB) and `d` (2 MiB) pending and side1 finished (the judge waited for it), `e = malloc(2 MiB)` got {} instead of `d`'s block at {want:#x}: it asked {queries} event(s) for 2 pending blocks, so `d` was never asked in that pass. A loop that removes a done block and then moves on skips the block moved into its place (`swap_remove(i)` moves the last one to `i`): move on only when the block at `i` stays, or ask every block once (`retain`)",
                match call.of(OpKind::AllocSegment).first() {
                    Some(seg) => format!("a new segment ({})", describe(seg)),
                    None => format!("the block at {:#x}", e.addr),
                }
            ),
        );
        return Err(match call.of(OpKind::AllocSegment).first() {
            Some(seg) => failure.at(seg.site),
            None => failure,
        });
    }
    Err(not_back(
        EXPECTED,
        call,
        "with `c` (1 MiB) and `d` (2 MiB) pending and side1 finished, `e = malloc(2 MiB)`",
        "`d`, whose event, on side1, had completed with `c`'s",
        &e,
        want,
    ))
}

pub(super) fn events_complete_in_any_order(ctx: &Ctx) -> Result<(), Failure> {
    let mut s = Session::open(ctx, 2)?;
    let mut a = s.malloc("a", MIB)?;
    let mut b = s.malloc("b", MIB)?;
    s.fill(&a, 1.0)?;
    s.fill(&b, 1.0)?;
    s.record_stream(&mut a, "a", 1);
    let slow_a = s.slow_read(1, &a, SLOW)?;
    s.record_stream(&mut b, "b", 2);
    let _short_b = s.slow_read(2, &b, SHORT)?;
    let (addr_a, addr_b) = (a.addr, b.addr);
    s.free(a, "a")?;
    s.free(b, "b")?;
    s.side[1].synchronize()?;
    let m = s.malloc("m", MIB)?;
    waited(s.last())?;
    s.fill(&m, 999.0)?;
    if m.addr == addr_a {
        let what = match free_events_problem(&s, "a", 1) {
            Some(problem) => format!(
                "`m = malloc(1 MiB)` handed out `a`'s block, freed first, while side1's slow reader still read it: {problem}"
            ),
            None => "`m = malloc(1 MiB)` handed out `a`'s block, freed first, while side1's slow reader still read it: `b`'s event (side2, finished) had completed, `a`'s (side1) had not. Each pending block comes back when its own events have completed, not when another block's have".into(),
        };
        return Err(handed_out_busy(&s, &what, slow_a));
    }
    if m.addr != addr_b || !s.last().of(OpKind::AllocSegment).is_empty() {
        let whose = match free_events_problem(&s, "b", 2) {
            Some(problem) => format!("`b`, noted on side2, which had finished; but {problem}"),
            None => "`b`, whose event had completed though `a`'s had not: a busy stream must not hold back the blocks of a finished one".into(),
        };
        return Err(not_back(
            EXPECTED_ORDER,
            s.last(),
            "with `a` (freed first, side1 still reading) and `b` (freed second, side2 finished) pending, `m = malloc(1 MiB)`",
            &whose,
            &m,
            addr_b,
        ));
    }
    let mut c = s.malloc("c", MIB)?;
    s.fill(&c, 1.0)?;
    // The stream that finishes first is noted first: an allocator that
    // keeps only the first note frees `c` with side2's event alone.
    s.record_stream(&mut c, "c", 2);
    s.record_stream(&mut c, "c", 1);
    let slow_c = s.slow_read(1, &c, SLOW)?;
    let _short_c = s.slow_read(2, &c, SHORT)?;
    let addr_c = c.addr;
    s.free(c, "c")?;
    s.side[1].synchronize()?;
    let n = s.malloc("n", MIB)?;
    waited(s.last())?;
    s.fill(&n, 999.0)?;
    if n.addr == addr_c {
        let c_records = s.call("`free(c)`").of(OpKind::EventRecord);
        let on = |side: usize| {
            c_records
                .iter()
                .any(|e| e.stream == Some(s.stream(side).id()))
        };
        let what = match (on(2), free_events_problem(&s, "c", 1)) {
            (true, Some(_)) => "`n = malloc(1 MiB)` handed out `c`'s block, noted for side1 and side2, while side1's slow reader still read it: `free(c)` recorded an event on side2 and none on side1, though both were noted with `record_stream`, so side2's event alone decided. A block keeps every stream noted on it, and `free` records one event on each; it comes back only when both events have completed".to_string(),
            (_, Some(problem)) => format!(
                "`n = malloc(1 MiB)` handed out `c`'s block, noted for side1 and side2, while side1's slow reader still read it: {problem}"
            ),
            (_, None) => "`n = malloc(1 MiB)` handed out `c`'s block, noted for side1 and side2, once side2's event had completed, while side1's slow reader still read it: a block with two noted streams comes back only when both events have completed".into(),
        };
        return Err(handed_out_busy(&s, &what, slow_c));
    }
    if n.addr == addr_a {
        return Err(handed_out_busy(
            &s,
            "`n = malloc(1 MiB)` handed out `a`'s block while side1's slow reader still read it: its event, on side1, had not completed",
            slow_a,
        ));
    }
    let (sum_a, sum_c) = (s.read(1, &slow_a)?, s.read(1, &slow_c)?);
    let races = s.races();
    if sum_a != N as f32 || sum_c != N as f32 || !races.is_empty() {
        return Err(Failure::new(
            EXPECTED_ORDER,
            format!(
                "side1's readers of `a` and `c` summed {sum_a} and {sum_c} instead of {N}, with {} race(s)",
                races.len()
            ),
        )
        .detail(race_lines(&races)));
    }
    Ok(())
}

/// What is wrong with the events `free(name)` recorded, for a block noted
/// on stream `side` alone, if anything: none recorded, or recorded on
/// another stream, whose completion says nothing about `side`'s reader (so
/// the message never says an event completed that the trace shows was
/// never recorded where it should be).
fn free_events_problem(s: &Session, name: &str, side: usize) -> Option<String> {
    let free = s.call(&format!("`free({name})`"));
    let records = free.of(OpKind::EventRecord);
    let noted = Some(s.stream(side).id());
    if records.iter().any(|e| e.stream == noted) {
        return None;
    }
    let note = format!(
        "`record_stream(&mut {name}, &{})`",
        super::support::stream_name(side)
    );
    let early = s
        .calls
        .iter()
        .find(|c| c.what == note)
        .and_then(|c| c.of(OpKind::EventRecord).first().copied().cloned());
    Some(match (records.first(), early) {
        (None, Some(e)) => format!(
            "`free({name})` recorded no event, and {note} recorded one ({}), before {}'s reader was queued: it completes without waiting for that reader. Record the event at `free`, when the stream's use of the block is all queued",
            describe(&e),
            super::support::stream_name(side)
        ),
        (None, None) => format!(
            "`free({name})` recorded no event, so nothing tells `malloc` when {}'s reader is done: at `free`, record an event on each stream noted with `record_stream`",
            super::support::stream_name(side)
        ),
        (Some(e), _) => format!(
            "`free({name})` recorded its event on {} ({}), not on {}, the stream noted with `record_stream`: that event completes when {}'s work has, which says nothing about {}'s reader. Record it on the noted stream",
            s.name_of(e.stream),
            describe(e),
            super::support::stream_name(side),
            s.name_of(e.stream),
            super::support::stream_name(side)
        ),
    })
}

/// Fails when `call` made the CPU wait: whatever block it then handed out,
/// it knew the stream was done by waiting for it.
fn waited(call: &Call) -> Result<(), Failure> {
    match call
        .entries
        .iter()
        .find_map(|e| super::waits::cause(e).map(|why| (e, why)))
    {
        None => Ok(()),
        Some((e, why)) => Err(Failure::new(
            EXPECTED_ORDER,
            format!(
                "{} waited for the GPU before it chose a block, {}: {why}",
                call.what,
                describe(e)
            ),
        )
        .at(e.site)),
    }
}

/// `call` (said `said`) did not hand out the block expected (`whose`, at
/// `expected`): the cause, from its trace.
fn not_back(
    expected_words: &str,
    call: &Call,
    said: &str,
    whose: &str,
    got: &Held,
    expected: u64,
) -> Failure {
    let queries = call.of(OpKind::EventQuery);
    let segment = call.of(OpKind::AllocSegment);
    let got_what = match segment.first() {
        Some(e) => format!("a new segment ({})", describe(e)),
        None => format!("the block at {:#x}", got.addr),
    };
    let why = if queries.is_empty() {
        "It asked no event: pending blocks never come back unless `malloc` asks their events (`Event::query`, which never blocks) and moves those whose events have all completed to the free list".to_string()
    } else {
        format!(
            "It asked {} event(s) ({} first): every pending block's events are to be asked, and a block whose events have all completed moved to the free list before the free list is searched",
            queries.len(),
            describe(queries[0])
        )
    };
    let fail = Failure::new(
        expected_words,
        format!("{said} got {got_what} instead of the block at {expected:#x}, {whose}. {why}"),
    );
    match segment.first() {
        Some(e) => fail.at(e.site),
        None => fail,
    }
}

/// A block handed out while a slow reader on side1 still read it: `what`,
/// with the reader's sum and the races.
fn handed_out_busy(s: &Session, what: &str, reader: super::support::Out) -> Failure {
    let sum = s.read(1, &reader).map_or(f32::NAN, |v| v);
    let races = s.races();
    Failure::new(
        EXPECTED_ORDER,
        format!("{what}. side1's reader summed {sum} instead of {N}"),
    )
    .detail(race_lines(&races))
}
