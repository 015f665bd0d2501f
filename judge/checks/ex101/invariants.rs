//! The random workload: a seeded sequence of operations, with every
//! invariant of the allocator's state checked after each step, and the
//! pending blocks against the model of event completion of `pending.rs`.

use super::pending::Pending;
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
        let op = random_step(&mut rng, &mut a, &mut live, &mut pending)
            .map_err(|f| at_step(f, seed, step, "", &a))?;
        check_invariants(&a, &live).map_err(|f| at_step(f, seed, step, &op, &a))?;
        pending
            .check(&a.snapshot())
            .map_err(|f| at_step(f, seed, step, &op, &a))?;
    }
    Ok(())
}

/// One random operation; returns what it did.
fn random_step(
    rng: &mut XorShift,
    a: &mut Sim,
    live: &mut Vec<Block>,
    pending: &mut Pending,
) -> Result<String, Failure> {
    let stream = StreamId(rng.below(3) as u32);
    match rng.below(100) {
        0..=44 => {
            let size = match rng.below(10) {
                0..=5 => rng.below(64 * KIB as u64) as usize,
                6..=7 => rng.below(MIB as u64 + 2) as usize,
                _ => rng.below(24 * MIB as u64) as usize,
            };
            let op = format!("malloc({size}, stream {})", stream.0);
            let retries = a.stats().num_alloc_retries;
            let result = a.malloc(size, stream);
            pending.polled();
            if a.stats().num_alloc_retries > retries {
                pending.waited();
            }
            match result {
                Ok(block) => {
                    pending.handed_out(&block);
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
            Ok(op)
        }
        45..=79 if !live.is_empty() => {
            let block = live.swap_remove(rng.below(live.len() as u64) as usize);
            let op = format!("free(block at {:#x})", block.addr());
            pending.freed(block.addr(), block.size());
            a.free(block).map_err(|e| {
                Failure::new(format!("{op} of a live block to succeed"), format!("{e:?}"))
            })?;
            Ok(op)
        }
        80..=89 if !live.is_empty() => {
            let block = &live[rng.below(live.len() as u64) as usize];
            a.record_stream(block, stream);
            pending.recorded(block, stream);
            Ok(format!(
                "record_stream(block at {:#x}, stream {})",
                block.addr(),
                stream.0
            ))
        }
        90..=97 => {
            a.driver_mut().finish(stream);
            pending.finished(stream);
            Ok(format!("finish(stream {})", stream.0))
        }
        _ => {
            a.empty_cache();
            pending.waited();
            Ok("empty_cache()".into())
        }
    }
}

fn at_step(failure: Failure, seed: u64, step: usize, op: &str, a: &Sim) -> Failure {
    let layout: String = a
        .snapshot()
        .iter()
        .map(|s| {
            format!(
                "\n  {:?} segment of {} at {:#x} for stream {}: {}",
                s.pool,
                bytes(s.size),
                s.base,
                s.stream.0,
                match s.blocks.len() {
                    1 => "1 block".to_string(),
                    n => format!("{n} blocks"),
                }
            )
        })
        .collect();
    let expected = format!(
        "{} (random workload, seed {seed:#x}, step {step}{})",
        failure.expected,
        if op.is_empty() {
            String::new()
        } else {
            format!(", after {op}")
        }
    );
    let layout = format!("segments at that step:{layout}");
    let detail = match failure.detail {
        Some(why) => format!("{why}\n{layout}"),
        None => layout,
    };
    Failure::new(expected, failure.actual).detail(detail)
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
