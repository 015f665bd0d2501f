//! Streams and `record_stream`: free blocks are kept per stream, a block
//! used by other streams waits for them, and `empty_cache` waits too.

use super::logged::Asked;
use super::support::{
    ALLOC, Because, FREE, MIB, PEND, S0, S1, S2, S3, Seg, Size, at, ensure, ensure_at, ensure_rows,
    free, malloc, mb, rows, segments, sim,
};
use caching_allocator::{LARGE_BUFFER, Pool, SMALL_BUFFER};
use judge_harness::{Ctx, Failure, ensure_eq};

pub(super) fn keeps_free_blocks_per_stream(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let x = malloc(&mut a, 4096, S0)?;
    free(&mut a, x)?;
    let y = malloc(&mut a, 4096, S1)?;
    ensure_at(
        &y,
        mb(2),
        "malloc(4 KiB) on stream 1 after a block of stream 0 was freed: a new small segment for stream 1, not stream 0's block",
    )
    .because(|| per_stream(y.addr() == 0))?;
    let z = malloc(&mut a, 4096, S0)?;
    ensure_at(&z, 0, "malloc(4 KiB) on stream 0 reuses its freed block").because(|| {
        "stream 0's own cache holds the free block at 0 that fits, yet malloc passed it by: best fit looks among the free blocks of the request's own pool and stream (the smallest that fits), so another stream's blocks neither serve the request nor end the search".into()
    })?;
    let l = malloc(&mut a, mb(5), S0)?;
    ensure_at(&l, mb(4), "malloc(5 MiB) on stream 0 opens a large segment")?;
    free(&mut a, l)?;
    let m = malloc(&mut a, mb(5), S1)?;
    ensure_at(
        &m,
        mb(24),
        "malloc(5 MiB) on stream 1 after stream 0 freed its 5 MiB: a new large segment for stream 1",
    )
    .because(|| per_stream(m.addr() == mb(4) as u64))?;
    let streams: Vec<u32> = a.snapshot().iter().map(|s| s.stream.0).collect();
    ensure_eq(
        streams,
        vec![0, 1, 0, 1],
        "the streams of the segments, by address",
    )?;
    // The other way round: stream 0 has no free block, stream 1 has one
    // that fits (a search that runs past stream 0's blocks finds it).
    let mut b = sim(mb(64));
    let cached = malloc(&mut b, mb(12), S1)?;
    free(&mut b, cached)?;
    let own = malloc(&mut b, mb(12), S0)?;
    ensure_at(
        &own,
        mb(12),
        "malloc(12 MiB) on stream 0 with only stream 1's freed 12 MiB block cached: a new segment for stream 0",
    )
    .because(|| {
        if own.addr() == 0 {
            "stream 0 was handed the block stream 1 freed: each stream has its own free blocks, so when none of the request's own stream fits, the request gets a new segment, never the next stream's block (a best fit that ranges from `(stream, size, 0)` must stop when the key's stream is not the request's)".into()
        } else {
            per_stream(false)
        }
    })
}

/// Why a malloc must not wait for a pending free's event.
pub(super) const MALLOC_DOES_NOT_WAIT: &str = "malloc notices completed events without blocking (`event_done`, from the front of each stream's queue) and leaves a block pending while its stream still runs; waiting there blocks the CPU until the other stream's work is done, a hidden sync in every malloc: only empty_cache and the out-of-memory retry (after the driver refused a segment) wait for pending frees";

/// Why a block is wrong for a request of stream 1; `shared`: it is the one
/// stream 0 freed.
fn per_stream(shared: bool) -> String {
    if shared {
        "stream 1 was handed the block stream 0 freed: each stream has its own free blocks, and a block freed on one stream is never handed to another (its later work is not ordered after the other stream's)".into()
    } else {
        "each stream has its own free blocks and segments: a request of a stream with no free block that fits opens a new segment for it".into()
    }
}

pub(super) fn record_stream_defers_reuse_until_the_stream_finishes(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let x = malloc(&mut a, MIB, S0)?;
    a.record_stream(&x, S1);
    a.driver_mut().take();
    free(&mut a, x)?;
    let at_free = a.driver_mut().take();
    ensure_rows(
        &a,
        0,
        &[(0, MIB, PEND), (MIB as u64, MIB, FREE)],
        "a 1 MiB block recorded on stream 1, then freed: pending free until stream 1's work finishes",
    )?;
    let y = malloc(&mut a, MIB, S0)?;
    let waited = a
        .driver_mut()
        .take()
        .iter()
        .any(|asked| matches!(asked, Asked::Wait(_)));
    ensure(
        y.addr() != 0 && !waited,
        "malloc(1 MiB) while stream 1 may still use the freed block at 0: the free block at 1 MiB, no reuse of the pending one",
        || {
            if waited {
                format!(
                    "malloc waited for stream 1's event (`wait_event`), then handed out the block at {}",
                    at(y.addr())
                )
            } else {
                format!(
                    "a reuse: malloc handed out the pending block at {} while stream 1 may still use it",
                    at(y.addr())
                )
            }
        },
    )
    .map_err(|failure| match waited {
        true => failure.detail(MALLOC_DOES_NOT_WAIT),
        false => failure,
    })?;
    a.driver_mut().finish(S1);
    let z = malloc(&mut a, MIB, S0)?;
    ensure_at(
        &z,
        0,
        "after stream 1 finishes, the next malloc(1 MiB) notices its event and reuses the block",
    )
    .because(|| {
        let events: Vec<u32> = at_free
            .iter()
            .filter_map(|a| match a {
                Asked::Event(s) => Some(s.0),
                _ => None,
            })
            .collect();
        if events == [S1.0] {
            "stream 1 has finished, so the pending block's event has completed, yet malloc did not reuse it: malloc polls the events of pending frees first, and a block whose events have all completed is free again".into()
        } else {
            format!(
                "the free of the block recorded on stream 1 recorded its event(s) on stream(s) {events:?}, so stream 1's finish completes none of them: at free, one event goes on each stream noted with `record_stream` (`record_event(stream 1)` here), marking where that stream's use ends"
            )
        }
    })?;
    let w = malloc(&mut a, 4096, S0)?;
    ensure_at(
        &w,
        mb(2),
        "malloc(4 KiB) on a full small segment opens another",
    )?;
    a.record_stream(&w, S1);
    a.record_stream(&w, S2);
    free(&mut a, w)?;
    a.driver_mut().finish(S1);
    let v = malloc(&mut a, 4096, S0)?;
    ensure(
        v.addr() != mb(2) as u64,
        "with streams 1 and 2 recorded and only stream 1 finished, no reuse of the block at 2 MiB",
        || {
            format!(
                "a reuse: malloc handed out the block at {} while stream 2 may still use it",
                at(v.addr())
            )
        },
    )?;
    a.driver_mut().finish(S2);
    let u = malloc(&mut a, 4096, S0)?;
    ensure_at(
        &u,
        mb(2),
        "once both recorded streams finish, the block at 2 MiB is reused",
    )?;
    one_busy_stream_holds_up_only_its_own_blocks()?;
    each_pending_free_waits_for_its_own_event()?;
    notes_end_with_the_allocation()
}

/// Two blocks noted on stream 1 and freed one after the other, with more
/// work queued on stream 1 between the frees: when stream 1 has done the
/// work before the first free's event and not the work after it, only the
/// first block is free again.
fn each_pending_free_waits_for_its_own_event() -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let x = malloc(&mut a, MIB, S0)?;
    let y = malloc(&mut a, MIB, S0)?;
    let at_y = y.addr();
    a.record_stream(&x, S1);
    a.record_stream(&y, S1);
    free(&mut a, x)?;
    free(&mut a, y)?;
    a.driver_mut().reach(S1, 1);
    let _z = malloc(&mut a, MIB, S0)?;
    let y_state = rows(&a, 0)
        .iter()
        .find(|&&(addr, ..)| addr == at_y)
        .map(|&(.., s)| s);
    ensure_rows(
        &a,
        0,
        &[(0, MIB, ALLOC), (MIB as u64, MIB, PEND)],
        "two 1 MiB blocks noted on stream 1 and freed in turn, stream 1 past the first free's event and not the second's, then malloc(1 MiB): the first block reused, the second still pending",
    )
    .because(|| match y_state {
        Some(FREE) | None => format!(
            "the block at {} was released although its event, the second recorded on stream 1, has not completed: stream 1 has only done the work queued before the first free. Each pending free waits for its own events; the completion of an older event on a stream says nothing about work queued on it later. Poll a stream's events oldest first and stop at the first that has not completed",
            at(at_y)
        ),
        Some(_) => "stream 1 has done the work before the first free's event, so the first block is free again and malloc reuses it, while the second, freed after more work was queued on stream 1, waits for its own event".into(),
    })
}

/// Two blocks recorded on streams 1 and 2: when stream 2 finishes and
/// stream 1 does not, stream 2's block is free again.
fn one_busy_stream_holds_up_only_its_own_blocks() -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let x = malloc(&mut a, MIB, S0)?;
    let y = malloc(&mut a, MIB, S0)?;
    let _keep = malloc(&mut a, mb(2), S0)?;
    a.record_stream(&x, S1);
    a.record_stream(&y, S2);
    let (at_x, at_y) = (x.addr(), y.addr());
    free(&mut a, x)?;
    free(&mut a, y)?;
    a.driver_mut().finish(S2);
    let z = malloc(&mut a, MIB, S0)?;
    ensure(
        z.addr() == at_y,
        format!(
            "malloc(1 MiB) once stream 2 has finished and stream 1 has not: the block at {} (recorded on stream 2)",
            at(at_y)
        ),
        || format!("a block at {}", at(z.addr())),
    )
    .because(|| {
        if z.addr() == at_x {
            "it handed out the block stream 1 may still use".into()
        } else {
            "stream 2 has finished, so its block is free again although stream 1 is still busy: each stream's events are polled on their own, and a busy stream holds up only the blocks recorded on it".into()
        }
    })
}

/// A block recorded on stream 1, freed, reused once stream 1 finished and
/// freed again without `record_stream`: free at once.
fn notes_end_with_the_allocation() -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let x = malloc(&mut a, MIB, S0)?;
    a.record_stream(&x, S1);
    free(&mut a, x)?;
    a.driver_mut().finish(S1);
    let y = malloc(&mut a, MIB, S0)?;
    free(&mut a, y)?;
    ensure_rows(
        &a,
        0,
        &[(0, mb(2), FREE)],
        "a block recorded on stream 1, freed, reused on stream 0 once stream 1 finished, and freed again with no record_stream: free at once",
    )
    .because(|| {
        "`record_stream`'s streams belong to one allocation: free takes them, and a block handed out again starts with none".into()
    })
}

pub(super) fn record_stream_on_the_own_stream_is_ignored(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let x = malloc(&mut a, 4096, S0)?;
    a.record_stream(&x, S0);
    free(&mut a, x)?;
    ensure_rows(
        &a,
        0,
        &[(0, SMALL_BUFFER, FREE)],
        "a block recorded on its own stream is free at once (its stream's order protects it)",
    )?;
    let y = malloc(&mut a, 4096, S0)?;
    ensure_at(&y, 0, "malloc(4 KiB) on the same stream reuses it")
}

pub(super) fn empty_cache_waits_for_pending_frees(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(100));
    let s = malloc(&mut a, 4096, S0)?;
    let l1 = malloc(&mut a, mb(5), S0)?;
    let l2 = malloc(&mut a, mb(5), S0)?;
    a.record_stream(&s, S3);
    free(&mut a, s)?;
    free(&mut a, l1)?;
    a.driver_mut().take();
    a.empty_cache();
    let returned: Vec<u64> = a
        .driver_mut()
        .take()
        .iter()
        .filter_map(|q| match q {
            Asked::Return { addr, .. } => Some(*addr),
            _ => None,
        })
        .collect();
    let kept = segments(&a);
    ensure_eq(
        kept.clone(),
        vec![Seg(mb(2) as u64, LARGE_BUFFER, S0, Pool::Large)],
        "segments after empty_cache: it waits for stream 3, so the small segment is wholly free and returned, and the large one still holds an allocated block",
    )
    .because(|| {
        if let Some(s) = kept.iter().find(|s| returned.contains(&s.0)) {
            format!(
                "empty_cache gave the segment at {} back to the driver (`free_segment`), yet the snapshot still lists it: a segment given back is no longer the allocator's, so it leaves its table at once (or a later empty_cache gives it back a second time)",
                at(s.0)
            )
        } else if kept.iter().any(|s| s.3 == Pool::Small) {
            "the small segment was kept although its only block was merely pending on stream 3: empty_cache first waits for the pending frees, and then returns every segment that is wholly free".into()
        } else {
            "empty_cache returns exactly the wholly free segments: one that still holds an allocated block stays".into()
        }
    })?;
    let (m2, m7, m12) = (mb(2) as u64, mb(7) as u64, mb(12) as u64);
    ensure_rows(
        &a,
        mb(2),
        &[(m2, mb(5), FREE), (m7, mb(5), ALLOC), (m12, mb(10), FREE)],
        "the large segment after empty_cache",
    )?;
    free(&mut a, l2)?;
    a.empty_cache();
    ensure_eq(
        (Size(a.memory_reserved()), a.snapshot().len()),
        (Size(0), 0),
        "(memory_reserved, segments) after freeing everything and empty_cache",
    )?;
    let x = malloc(&mut a, mb(4), S0)?;
    a.record_stream(&x, S2);
    free(&mut a, x)?;
    a.empty_cache();
    ensure_eq(
        Size(a.memory_reserved()),
        Size(0),
        "memory_reserved after empty_cache with one pending block in an otherwise free segment",
    )
}
