//! Out of memory: the fragmentation OOM and its message, the release and
//! the retry (the counters and a refused free are in `counters.rs`).

use super::logged::Asked;
use super::support::{
    Because, KIB, MIB, S0, S1, Size, at, bytes, ensure, ensure_at, free, malloc, mb, sim,
};
use caching_allocator::AllocError;
use judge_harness::{Ctx, Failure, ensure_eq};

pub(super) fn fragmentation_oom_explains_reserved_but_unallocated(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(40));
    let mut x = Vec::new();
    for _ in 0..4 {
        x.push(Some(malloc(&mut a, mb(8), S0)?));
    }
    let addrs: Vec<u64> = x.iter().flatten().map(|b| b.addr() / MIB as u64).collect();
    ensure_eq(
        addrs,
        vec![0, 8, 20, 28],
        "addresses in MiB of four malloc(8 MiB) in two 20 MiB segments",
    )?;
    free(&mut a, x[0].take().expect("allocated"))?;
    free(&mut a, x[2].take().expect("allocated"))?;
    let expected = AllocError::OutOfMemory {
        requested: mb(12),
        allocated: mb(16),
        reserved: mb(40),
    };
    let err = match a.malloc(mb(12), S0) {
        Ok(b) => {
            return Err(Failure::new(
                format!(
                    "{expected:?}: 24 MiB is free but no free block holds 12 MiB, and a 12 MiB segment exceeds the 40 MiB device"
                ),
                format!("a block of {} at {}", bytes(b.size()), at(b.addr())),
            ));
        }
        Err(e) => e,
    };
    ensure_eq(
        &err,
        &expected,
        "malloc(12 MiB) with 16 MiB allocated in two 20 MiB segments of a 40 MiB device",
    )?;
    let stats = a.stats();
    ensure_eq(
        (stats.num_alloc_retries, stats.num_ooms),
        (1, 1),
        "(num_alloc_retries, num_ooms): one retry after releasing the cache, then the OOM",
    )?;
    let text = err.to_string();
    for needed in ["reserved but unallocated", "fragment", "12 MiB", "24 MiB"] {
        ensure(
            text.contains(needed),
            format!(
                "the message to name the request (12 MiB), say that 24 MiB is reserved but unallocated and name fragmentation as the cause (contain `{needed}`)"
            ),
            || format!("the message `{text}`"),
        )?;
    }
    let mut full = sim(mb(40));
    let _big = malloc(&mut full, mb(30), S0)?;
    let err = full.malloc(mb(20), S0).err();
    let text = err.as_ref().map(ToString::to_string).unwrap_or_default();
    let is_oom = matches!(err, Some(AllocError::OutOfMemory { .. }));
    ensure(
        is_oom && !text.contains("fragment"),
        "malloc(20 MiB) with 30 MiB allocated of 40: OutOfMemory whose message does not blame fragmentation (nothing is reserved but unallocated, so no `fragment`)",
        || format!("{err:?}: `{text}`"),
    )
    .because(|| {
        if is_oom {
            "the message blames fragmentation although nothing is reserved but unallocated here (all 30 MiB reserved are allocated): name fragmentation only when the reserved but unallocated bytes could have held the request".into()
        } else {
            "the device has 10 MiB left and nothing is cached: a request of 20 MiB is OutOfMemory".into()
        }
    })?;
    idle_exactly_the_request()?;
    idle_less_than_the_request()?;
    oom_fields_of_every_size_class()?;
    free(&mut a, x[1].take().expect("allocated"))?;
    free(&mut a, x[3].take().expect("allocated"))?;
    let y = malloc(&mut a, mb(30), S0)?;
    ensure_at(
        &y,
        mb(40),
        "after freeing the other two blocks, malloc(30 MiB) returns both free segments to the driver and gets a new one",
    )?;
    let retries = a.stats().num_alloc_retries;
    ensure_eq(
        (Size(a.memory_reserved()), retries),
        (Size(mb(30)), 2),
        "(memory_reserved, num_alloc_retries) after that",
    )
    .because(|| {
        if retries < 2 {
            RESCUED.into()
        } else {
            "the first retry (the OOM) and this one: each refused segment followed by a second request counts one".into()
        }
    })
}

/// Why a retry that succeeded is a retry.
const RESCUED: &str = "malloc(30 MiB) was refused a segment, returned the cached segments and got one on its second request: that second request is a retry, counted whether it succeeds or not (an OOM is what counts the failures)";

/// Reserved but unallocated bytes exactly equal to the request: the memory
/// is there, cut up, so the message names fragmentation ("at least the
/// request", not "more than").
fn idle_exactly_the_request() -> Result<(), Failure> {
    let mut a = sim(mb(40));
    let mut x = Vec::new();
    for _ in 0..4 {
        x.push(malloc(&mut a, mb(8), S0)?);
    }
    free(&mut a, x.remove(0))?;
    let err = a.malloc(mb(16), S0).err();
    let text = err.as_ref().map(ToString::to_string).unwrap_or_default();
    ensure(
        matches!(err, Some(AllocError::OutOfMemory { .. })) && text.contains("fragment"),
        "malloc(16 MiB) with 24 MiB allocated in 40 MiB reserved: OutOfMemory whose message names fragmentation (16 MiB reserved but unallocated, exactly the request)",
        || format!("{err:?}: `{text}`"),
    )
    .because(|| {
        "reserved but unallocated (16 MiB) is at least the request (16 MiB): the memory is there but cut up, so the message names fragmentation whenever the idle bytes are at least the request, equal included".into()
    })
}

/// Reserved but unallocated bytes fewer than the request: some memory is
/// cached, but even in one piece it could not hold the request, so the
/// device is full, not fragmented, and the message does not name
/// fragmentation ("at least the request", the other side of the rule).
fn idle_less_than_the_request() -> Result<(), Failure> {
    let mut a = sim(mb(40));
    let mut x = Vec::new();
    for _ in 0..4 {
        x.push(malloc(&mut a, mb(8), S0)?);
    }
    let err = a.malloc(mb(12), S0).err();
    let text = err.as_ref().map(ToString::to_string).unwrap_or_default();
    let is_oom = matches!(err, Some(AllocError::OutOfMemory { .. }));
    ensure(
        is_oom && !text.contains("fragment"),
        "malloc(12 MiB) with 32 MiB allocated in 40 MiB reserved: OutOfMemory whose message does not name fragmentation (8 MiB reserved but unallocated, less than the request)",
        || format!("{err:?}: `{text}`"),
    )
    .because(|| {
        if is_oom {
            "the message blames fragmentation for a request larger than all the reserved but unallocated memory (8 MiB cached for a 12 MiB request): even in one piece it could not hold the request, so the device is full, not fragmented; name fragmentation only when the reserved but unallocated bytes are at least the request, not whenever some memory is cached".into()
        } else {
            "two 20 MiB segments fill the 40 MiB device, their free 4 MiB tails cannot hold 12 MiB, and a 12 MiB segment does not fit: OutOfMemory".into()
        }
    })
}

/// `OutOfMemory` on an empty allocator whose device is too small for the
/// request's new segment, for a request of each size class: `requested` is
/// the request rounded to 512 bytes, never the segment asked of the driver.
fn oom_fields_of_every_size_class() -> Result<(), Failure> {
    for (request, device) in [(1000, MIB), (mb(5), mb(16)), (mb(12) + 1, mb(8))] {
        let rounded = request.next_multiple_of(512);
        let mut a = sim(device);
        let got = a.malloc(request, S0).err();
        let expected = AllocError::OutOfMemory {
            requested: rounded,
            allocated: 0,
            reserved: 0,
        };
        let reported = match got {
            Some(AllocError::OutOfMemory { requested, .. }) => Some(requested),
            _ => None,
        };
        ensure_eq(
            got,
            Some(expected),
            &format!(
                "malloc({}) on an empty allocator over a {} device",
                bytes(request),
                bytes(device)
            ),
        )
        .because(|| {
            if reported == Some(request) && request != rounded {
                format!(
                    "`requested` is {}, the size passed to malloc: it must be the request rounded to 512 B ({}), the size the allocator tried to place (the figure the fragmentation rule compares with reserved minus allocated)",
                    bytes(request),
                    bytes(rounded)
                )
            } else if reported.is_some_and(|r| r != rounded) {
                format!(
                    "`requested` must be the request rounded to 512 B ({}), not the segment the allocator asked the driver for",
                    bytes(rounded)
                )
            } else {
                "nothing is allocated or reserved, and the request's new segment does not fit the device: OutOfMemory".into()
            }
        })?;
        let text = a
            .malloc(request, S0)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        let size = bytes(rounded);
        if rounded.is_multiple_of(KIB) {
            ensure(
                text.contains(&size),
                format!("the message to name the request as `{size}`"),
                || format!("the message `{text}`"),
            )
            .because(|| {
                format!("sizes in the message are written for people, like `12 MiB`: {rounded} bytes is `{size}`")
            })?;
        }
    }
    Ok(())
}

/// With a block the wait for pending frees releases, in a segment that is
/// not wholly free: the retry returns no segment, asks the driver again, is
/// refused, and fails. It does not search the cache again.
fn the_retry_does_not_search_the_cache_again() -> Result<(), Failure> {
    let mut a = sim(mb(20));
    let _x = malloc(&mut a, mb(5), S0)?;
    let y = malloc(&mut a, mb(5), S0)?;
    let _z = malloc(&mut a, mb(10), S0)?;
    a.record_stream(&y, S1);
    free(&mut a, y)?;
    let got = a.malloc(mb(5), S0);
    let handed = got.as_ref().ok().map(|b| b.addr());
    let stats = a.stats();
    ensure(
        got.is_err() && (stats.num_alloc_retries, stats.num_ooms) == (1, 1),
        "malloc(5 MiB) on a full 20 MiB device whose only free memory is a 5 MiB block pending on stream 1: refused, one retry, then OutOfMemory",
        || match handed {
            Some(addr) => format!("a block at {} (the one the wait released)", at(addr)),
            None => format!("(num_alloc_retries, num_ooms) = ({}, {})", stats.num_alloc_retries, stats.num_ooms),
        },
    )
    .because(|| {
        "the retry waits for the pending frees, returns every wholly free segment and asks the driver once more: it does not search the cache again, so the block the wait released is not handed out (only a new segment can help now)".into()
    })
}

pub(super) fn oom_releases_cached_segments_and_retries(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(40));
    let o = malloc(&mut a, mb(5), S1)?;
    free(&mut a, o)?;
    let big = a.malloc(mb(30), S0).map_err(|e| Failure::new("malloc(30 MiB) on stream 0 with a 20 MiB segment cached for stream 1 on a 40 MiB device: the retry returns stream 1's cached segment and succeeds", format!("{e:?}: {e}; the segment cached for stream 1 was not returned to the driver before a retry, or there was no retry")))?;
    ensure_at(&big, mb(20), "that 30 MiB block").because(|| {
        if big.addr() == 0 {
            "it lies in the segment cached for stream 1 (its freed 5 MiB block at 0): stream 0 was handed a block of stream 1's cache, where no block of its own fits; each stream has its own free blocks, so the request asks the driver for a segment, and when refused, the retry returns stream 1's wholly free segment and asks again".into()
        } else {
            "the retry returns stream 1's wholly free 20 MiB segment to the driver, and the 30 MiB segment asked again lies after it".into()
        }
    })?;
    let s = a.stats();
    ensure_eq(
        (
            Size(s.reserved_bytes),
            s.num_alloc_retries,
            s.num_ooms,
            s.num_device_free,
        ),
        (Size(mb(30)), 1, 0, 1),
        "(reserved_bytes, num_alloc_retries, num_ooms, num_device_free) after it",
    )
    .because(|| {
        if s.num_alloc_retries == 0 {
            RESCUED.into()
        } else {
            "one refused segment, one retry that returns stream 1's cached segment (one driver free) and succeeds: no OOM".into()
        }
    })?;
    let mut a = sim(mb(20));
    let x = malloc(&mut a, mb(20), S0)?;
    let x_addr = x.addr();
    a.record_stream(&x, S1);
    free(&mut a, x)?;
    a.driver_mut().take();
    let y = a.malloc(mb(20), S0).map_err(|e| {
        let asked = a.driver_mut().take();
        let waited = asked.iter().any(|q| matches!(q, Asked::Wait(_)));
        let why = if waited {
            "the retry waited for the pending free, but did not return the segment it made wholly free: it returns every wholly free segment only after the wait"
        } else {
            "the retry never waited for the pending free (no `wait_event`), so the segment stayed held by a pending block: the retry first waits for every pending free, as empty_cache does, and only then returns the wholly free segments and asks again"
        };
        Failure::new("malloc(20 MiB) when the device's only segment waits on stream 1: the retry waits for the pending free, returns the segment and succeeds", format!("{e:?}")).detail(why)
    })?;
    let asked = a.driver_mut().take();
    let refused = asked
        .iter()
        .position(|q| matches!(q, Asked::Segment { granted: false, .. }))
        .unwrap_or(asked.len());
    let waited_first = asked[..refused].iter().any(|q| matches!(q, Asked::Wait(_)));
    ensure_at(&y, mb(20), "that block (a new segment)").because(|| {
        if y.addr() == x_addr && waited_first {
            format!(
                "malloc waited for stream 1's event (`wait_event`) before the driver refused anything, then handed out the block just freed: {}",
                super::streams::MALLOC_DOES_NOT_WAIT
            )
        } else if y.addr() == x_addr {
            "it is the block just freed, which stream 1 may still be using: after `record_stream(x, stream 1)` its free is pending until stream 1's work is done, so no malloc may hand it out before; out of memory, the retry waits for the pending free, returns that segment to the driver and allocates a new one (see allocator.md#other-streams-record_stream)".to_string()
        } else {
            "the retry waits for the pending free, returns its segment to the driver, and allocates a new segment (see allocator.md#out-of-memory)".to_string()
        }
    })?;
    ensure_eq(
        (Size(a.memory_reserved()), a.stats().num_alloc_retries),
        (Size(mb(20)), 1),
        "(memory_reserved, num_alloc_retries) after it",
    )?;
    the_retry_does_not_search_the_cache_again()?;
    the_retry_runs_when_nothing_is_cached()
}

/// A refused segment when nothing is cached (a fresh allocator, or every
/// reserved byte allocated): the retry has no shortcut, it runs and is
/// counted all the same, and only then is the OOM reported.
fn the_retry_runs_when_nothing_is_cached() -> Result<(), Failure> {
    let mut fresh = sim(mb(8));
    let fresh_err = fresh.malloc(mb(12), S0).err();
    let mut full = sim(mb(40));
    let _big = malloc(&mut full, mb(30), S0)?;
    let full_err = full.malloc(mb(20), S0).err();
    for (what, a, err) in [
        (
            "malloc(12 MiB) on a fresh allocator over an 8 MiB device",
            &fresh,
            fresh_err,
        ),
        (
            "malloc(20 MiB) with 30 MiB of a 40 MiB device allocated and nothing cached",
            &full,
            full_err,
        ),
    ] {
        let s = a.stats();
        ensure(
            matches!(err, Some(AllocError::OutOfMemory { .. }))
                && (s.num_alloc_retries, s.num_ooms) == (1, 1),
            format!("{what}: refused, one retry, then OutOfMemory: (num_alloc_retries, num_ooms) = (1, 1)"),
            || format!("{err:?}, (num_alloc_retries, num_ooms) = ({}, {})", s.num_alloc_retries, s.num_ooms),
        )
        .because(|| {
            if s.num_alloc_retries == 0 && err.is_some() {
                "malloc reported OutOfMemory without the retry because nothing was cached (reserved equals allocated): the rule has no shortcut, every refused segment is followed by the wait for pending frees, the release of the wholly free segments, one counted retry and a second request to the driver, even when there looks to be nothing to release".into()
            } else {
                "the driver refuses the segment twice: the first refusal leads to one retry (counted in num_alloc_retries), the second to the OOM (counted in num_ooms)".into()
            }
        })?;
    }
    Ok(())
}
