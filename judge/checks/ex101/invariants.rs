//! The random workload: a seeded sequence of operations, with the rules of
//! each call checked (`calls.rs`), every invariant of the allocator's state
//! after each step, and the pending blocks against the model of event
//! completion of `pending.rs`. A failure names the call that broke the
//! invariant and the blocks it changed.

use super::calls::{self, Call, Done};
use super::logged::Asked;
use super::pending::{Pending, Released};
use super::support::{Because, KIB, MIB, Sim, bytes, ensure, sim};
use caching_allocator::{
    AllocError, Block, BlockState, LARGE_BUFFER, Pool, SMALL_BUFFER, StreamId,
};
use judge_harness::{Ctx, Failure};
use std::collections::BTreeMap;

/// A small xorshift generator: the same workload on every run.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const SEED: u64 = 0x9e37_79b9_7f4a_7c15;
const STEPS: usize = 3000;
const CAPACITY: usize = 96 << 20;

pub(super) fn random_workload_keeps_invariants(ctx: &Ctx) -> Result<(), Failure> {
    // The course's seed, or (when grading) one mixed with the grading seed;
    // xorshift needs a state that is not zero.
    let seed = ctx.seed_for(SEED).max(1);
    let mut rng = XorShift(seed);
    let mut a = sim(CAPACITY);
    let mut live: Vec<Block> = Vec::new();
    let mut pending = Pending::default();
    for step in 1..=STEPS {
        let before = a.snapshot();
        a.driver_mut().take();
        let (call, handed) = random_step(&mut rng, &mut a, &mut live, &mut pending)
            .map_err(|f| at_step(f, seed, step, None))?;
        let after = a.snapshot();
        let asked = a.driver_mut().take();
        let still_pending = pending.blocks();
        let done = Done {
            call: &call,
            before: &before,
            after: &after,
            asked: &asked,
            handed,
            pending: &still_pending,
        };
        let at = |f| at_step(f, seed, step, Some(&done));
        if let Some(failure) = calls::broken(&done) {
            return Err(at(failure));
        }
        check_invariants(&a, &live).map_err(at)?;
        pending.check(&after).map_err(at)?;
    }
    Ok(())
}

/// One random operation; returns what it did, and the block a `malloc`
/// handed out (address and size).
fn random_step(
    rng: &mut XorShift,
    a: &mut Sim,
    live: &mut Vec<Block>,
    pending: &mut Pending,
) -> Result<(Call, Option<(u64, usize)>), Failure> {
    let stream = StreamId(rng.below(3) as u32);
    match rng.below(100) {
        0..=44 => {
            let size = match rng.below(10) {
                0..=5 => rng.below(64 * KIB as u64) as usize,
                6..=7 => rng.below(MIB as u64 + 2) as usize,
                _ => rng.below(24 * MIB as u64) as usize,
            };
            let call = Call::Malloc { size, stream };
            let op = call.to_string();
            let retries = a.stats().num_alloc_retries;
            let result = a.malloc(size, stream);
            pending.polled();
            let retried = retried(a.driver().asked());
            if retried {
                pending.waited(Released::Retried);
            }
            let counted = a.stats().num_alloc_retries - retries;
            ensure(
                counted == usize::from(retried),
                format!("{op} to count {} retry", usize::from(retried)),
                || format!("{op} {} and counted {counted} retries", if retried { "was refused a segment and asked the driver again" } else { "asked the driver for no second segment" }),
            )
            .because(|| "a retry is counted each time the driver refuses a segment and malloc, after waiting for the pending frees and returning the wholly free segments, asks again: whether that second request succeeds or not (an OOM is what counts the failures)".into())?;
            let mut handed = None;
            match result {
                Ok(block) => {
                    pending.handed_out(&block);
                    handed = Some((block.addr(), block.size()));
                    live.push(block);
                }
                Err(AllocError::OutOfMemory {
                    requested,
                    allocated,
                    reserved,
                }) => {
                    let figures = (allocated, reserved);
                    ensure(
                        figures == (a.memory_allocated(), a.memory_reserved()) && requested >= size,
                        format!(
                            "{op} failing with OutOfMemory to report the request and the allocator's current figures"
                        ),
                        || {
                            format!(
                                "requested {requested}, (allocated, reserved) {figures:?}, while memory_allocated/reserved are {:?}",
                                (a.memory_allocated(), a.memory_reserved())
                            )
                        },
                    )
                    .because(|| {
                        if requested < size {
                            "`requested` is the request rounded to 512 B, never less than what was asked".into()
                        } else {
                            "OutOfMemory reports the figures at the moment it fails, after the retry released the cache: take them after the retry, not before it".into()
                        }
                    })?;
                }
                Err(e) => {
                    return Err(Failure::new(
                        format!("{op} to succeed or run out of memory"),
                        format!("{e:?}"),
                    ));
                }
            }
            Ok((call, handed))
        }
        45..=79 if !live.is_empty() => {
            let block = live.swap_remove(rng.below(live.len() as u64) as usize);
            let call = Call::Free {
                addr: block.addr(),
                stream: block.stream(),
                noted: pending.noted(block.addr()),
            };
            pending.freed(block.addr(), block.size());
            a.free(block).map_err(|e| {
                Failure::new(
                    format!("{call} of a live block to succeed"),
                    format!("{e:?}"),
                )
            })?;
            Ok((call, None))
        }
        80..=89 if !live.is_empty() => {
            let block = &live[rng.below(live.len() as u64) as usize];
            a.record_stream(block, stream);
            pending.recorded(block, stream);
            let addr = block.addr();
            Ok((Call::RecordStream { addr, stream }, None))
        }
        90..=97 => {
            a.driver_mut().finish(stream);
            pending.finished(stream);
            Ok((Call::Finish(stream), None))
        }
        _ => {
            a.empty_cache();
            pending.waited(Released::EmptyCache);
            Ok((Call::EmptyCache, None))
        }
    }
}

/// `failure` at `step`: the call named in what happened, and the blocks it
/// changed after the diagnosis (not a dump of every segment).
/// Whether the driver's log of one `malloc` shows a retry: a refused
/// segment, then another request.
fn retried(asked: &[Asked]) -> bool {
    let mut segments = asked.iter().filter_map(|a| match a {
        Asked::Segment { granted, .. } => Some(*granted),
        _ => None,
    });
    segments.next() == Some(false) && segments.next().is_some()
}

fn at_step(failure: Failure, seed: u64, step: usize, done: Option<&Done<'_>>) -> Failure {
    let expected = format!(
        "{} (random workload, seed {seed:#x}, step {step})",
        failure.expected
    );
    let Some(done) = done else {
        return Failure::new(expected, failure.actual).detail(failure.detail.unwrap_or_default());
    };
    let call = done.call.to_string();
    let actual = if failure.actual.contains(&call) {
        failure.actual
    } else {
        format!("after `{call}`: {}", failure.actual)
    };
    let diff = format!(
        "what `{call}` changed:\n{}",
        calls::changes(done.before, done.after)
    );
    let detail = match failure.detail {
        Some(why) => format!("{why}\n{diff}"),
        None => diff,
    };
    Failure::new(expected, actual).detail(detail)
}

/// Every invariant of the allocator's state.
fn check_invariants(a: &Sim, live: &[Block]) -> Result<(), Failure> {
    let snapshot = a.snapshot();
    let mut sums = BTreeMap::<&str, usize>::new();
    let mut allocated = BTreeMap::new();
    let mut previous_end = 0;
    for s in &snapshot {
        ensure(
            s.base >= previous_end,
            "segments by address, not overlapping",
            || {
                format!(
                    "a segment at {:#x} before the end of the previous one ({previous_end:#x})",
                    s.base
                )
            },
        )?;
        previous_end = s.base + s.size as u64;
        check_segment_size(s.size, s.pool)?;
        check_tiling(s)?;
        *sums.entry("reserved").or_default() += s.size;
        for b in &s.blocks {
            match b.state {
                BlockState::Allocated => {
                    *sums.entry("allocated").or_default() += b.size;
                    allocated.insert(b.addr, (b.size, s.stream));
                }
                BlockState::PendingFree => *sums.entry("pending").or_default() += b.size,
                BlockState::Free => {}
            }
        }
    }
    let sum = |key| sums.get(key).copied().unwrap_or(0);
    check_totals(
        a,
        sum("allocated"),
        sum("reserved"),
        sum("allocated") + sum("pending"),
    )?;
    let handles: BTreeMap<u64, (usize, StreamId)> = live
        .iter()
        .map(|b| (b.addr(), (b.size(), b.stream())))
        .collect();
    ensure(
        handles == allocated,
        "the allocated blocks of the snapshot to be exactly the live blocks (address, size, stream)",
        || {
            format!(
                "{} allocated blocks in the snapshot for {} live blocks; first difference at {:#x}",
                allocated.len(),
                handles.len(),
                first_difference(&handles, &allocated)
            )
        },
    )
}

fn check_segment_size(size: usize, pool: Pool) -> Result<(), Failure> {
    let ok = match pool {
        Pool::Small => size == SMALL_BUFFER,
        Pool::Large => size == LARGE_BUFFER || (size >= 10 * MIB && size.is_multiple_of(2 * MIB)),
    };
    ensure(
        ok,
        "small segments of 2 MiB, large ones of 20 MiB or a multiple of 2 MiB from 10 MiB",
        || format!("a {pool:?} segment of {}", bytes(size)),
    )
    .because(|| segment_size_rule(size, pool))
}

/// Which rule a segment of `size` in `pool` breaks.
pub(super) fn segment_size_rule(size: usize, pool: Pool) -> String {
    match pool {
        Pool::Large if size == SMALL_BUFFER => "a large-pool request under 10 MiB got a 2 MiB segment, the small pool's size: the segment follows the pool, so every large request (rounded above 1 MiB, SMALL_SIZE) under 10 MiB gets a 20 MiB segment (LARGE_BUFFER); compare the rounded request with SMALL_SIZE, not SMALL_BUFFER".into(),
        Pool::Large => "a large segment is 20 MiB for a request under 10 MiB, else the rounded request rounded up again to a multiple of 2 MiB".into(),
        Pool::Small => "every small-pool segment is 2 MiB (SMALL_BUFFER)".into(),
    }
}

fn check_tiling(s: &caching_allocator::SegmentInfo) -> Result<(), Failure> {
    let mut next = s.base;
    let mut last_free = false;
    for b in &s.blocks {
        ensure(
            b.addr == next && b.size > 0 && b.size % 512 == 0,
            "blocks that tile their segment: each starts where the previous ends, a positive multiple of 512 bytes",
            || {
                format!(
                    "in the segment at {:#x}, a block of {} at {:#x} where one should start at {next:#x}",
                    s.base,
                    bytes(b.size),
                    b.addr
                )
            },
        )?;
        let is_free = b.state == BlockState::Free;
        ensure(
            !(is_free && last_free),
            "no two adjacent free blocks (a freed block merges with free neighbours)",
            || {
                format!(
                    "two adjacent free blocks in the segment at {:#x}, the second at {:#x}: they were not merged",
                    s.base, b.addr
                )
            },
        )?;
        last_free = is_free;
        next = b.addr + b.size as u64;
    }
    ensure(
        next == s.base + s.size as u64,
        "blocks that cover their segment to its end",
        || {
            format!(
                "the blocks of the segment at {:#x} end at {next:#x}, the segment at {:#x}",
                s.base,
                s.base + s.size as u64
            )
        },
    )
}

fn check_totals(a: &Sim, allocated: usize, reserved: usize, active: usize) -> Result<(), Failure> {
    let s = a.stats();
    let figures = (
        a.memory_allocated(),
        s.allocated_bytes,
        a.memory_reserved(),
        s.reserved_bytes,
        s.active_bytes,
    );
    ensure(
        figures == (allocated, allocated, reserved, reserved, active),
        "(memory_allocated, allocated_bytes, memory_reserved, reserved_bytes, active_bytes) equal to the sums of the snapshot's allocated blocks, segments, and allocated plus pending blocks",
        || format!("{figures:?} for sums {:?}", (allocated, reserved, active)),
    )
    .because(|| totals_rule(figures, allocated, reserved, active))?;
    ensure(
        reserved <= CAPACITY,
        "reserved memory within the device's capacity",
        || format!("{} reserved", bytes(reserved)),
    )?;
    ensure(
        s.peak_allocated_bytes >= allocated && s.peak_reserved_bytes >= reserved,
        "peaks at least the current figures",
        || {
            format!(
                "peaks {:?} for current {:?}",
                (s.peak_allocated_bytes, s.peak_reserved_bytes),
                (allocated, reserved)
            )
        },
    )
}

/// Which counter is off, by how much, and the rule it breaks.
fn totals_rule(
    (memory_allocated, allocated_bytes, memory_reserved, reserved_bytes, active_bytes): (
        usize,
        usize,
        usize,
        usize,
        usize,
    ),
    allocated: usize,
    reserved: usize,
    active: usize,
) -> String {
    let off = |name: &str, got: usize, want: usize, rule: &str| {
        (got != want).then(|| {
            format!(
                "{name} is {} where the snapshot sums to {} ({} {}): {rule}",
                bytes(got),
                bytes(want),
                bytes(got.abs_diff(want)),
                if got > want { "too many" } else { "too few" }
            )
        })
    };
    let allocated_rule = "allocated counts the allocated blocks: it grows at malloc by the rounded size and drops at free, pending or not";
    let reserved_rule = "reserved counts the segments held from the driver: it grows when a segment is allocated and drops only when one is returned";
    let active_rule = "active counts the allocated and the pending blocks: a block freed while another stream may use it stays active until its events complete";
    [
        off(
            "memory_allocated",
            memory_allocated,
            allocated,
            allocated_rule,
        ),
        off(
            "allocated_bytes",
            allocated_bytes,
            allocated,
            allocated_rule,
        ),
        off("memory_reserved", memory_reserved, reserved, reserved_rule),
        off("reserved_bytes", reserved_bytes, reserved, reserved_rule),
        off("active_bytes", active_bytes, active, active_rule),
    ]
    .into_iter()
    .flatten()
    .next()
    .unwrap_or_default()
}

fn first_difference(
    a: &BTreeMap<u64, (usize, StreamId)>,
    b: &BTreeMap<u64, (usize, StreamId)>,
) -> u64 {
    a.iter()
        .zip(b.iter())
        .find(|(x, y)| x != y)
        .map(|(x, y)| *x.0.min(y.0))
        .or_else(|| a.keys().chain(b.keys()).copied().max())
        .unwrap_or(0)
}
