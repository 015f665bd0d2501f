//! The owner reuses at once: a script on the owner stream alone, each
//! call's trace read for the segment it asked for and the events it
//! recorded.

use super::support::{Held, MIB, Session, describe, size};
use gpu::OpKind;
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str = "a block freed by the owner alone to come back from the next `malloc` of its size, with no new segment and no event; a request of another size to get a new segment of its size";

pub(super) fn the_owner_reuses_at_once(ctx: &Ctx) -> Result<(), Failure> {
    untouched(ctx)?;
    let mut s = Session::open(ctx, 0)?;
    s.owner.spin(super::support::BUSY)?;
    let a = s.malloc("a", MIB)?;
    new_segment(&s, &a, MIB)?;
    s.fill(&a, 1.0)?;
    let first = a.addr;
    s.free(a, "a")?;
    no_event(&s, "no stream other than the owner uses the block")?;
    let mut b = s.malloc("b", MIB)?;
    reused(&s, &b, first, "a", "`free(a)`")?;
    s.record_stream(&mut b, "b", 0);
    no_event(
        &s,
        "`record_stream` of the owner stream is no note: the owner's later work runs after its earlier",
    )?;
    s.fill(&b, 2.0)?;
    s.free(b, "b")?;
    no_event(
        &s,
        "the only stream `record_stream` named was the owner, which needs no event",
    )?;
    let c = s.malloc("c", MIB)?;
    reused(
        &s,
        &c,
        first,
        "b",
        "`record_stream(&mut b, &owner)` then `free(b)`",
    )?;
    s.free(c, "c")?;
    let d = s.malloc("d", 2 * MIB)?;
    if d.addr == first || d.bytes != 2 * MIB {
        return Err(Failure::new(
            EXPECTED,
            format!(
                "`d = malloc(2 MiB)` handed out a block of {} at {:#x} while the only free block was `c`, 1 MiB at {first:#x}: a free block serves only a request of its own size, so this one needs a new 2 MiB segment",
                size(d.bytes),
                d.addr
            ),
        ));
    }
    new_segment(&s, &d, 2 * MIB)?;
    let e = s.malloc("e", MIB)?;
    reused(
        &s,
        &e,
        first,
        "c",
        "`free(c)` (then a 2 MiB request in between)",
    )?;
    let big = d.addr;
    s.free(d, "d")?;
    // Only `d`'s 2 MiB block is free: a smaller request, which it could
    // hold, still gets a segment of its own size.
    let f = s.malloc("f", MIB)?;
    if f.addr == big || f.bytes != MIB {
        return Err(Failure::new(
            EXPECTED,
            format!(
                "`f = malloc(1 MiB)` handed out a block of {} at {:#x} while the only free block was `d`, 2 MiB at {big:#x}: a free block serves only a request of its own size, exactly, not any request it is big enough for (this allocator never splits a block, so the 1 MiB request would hold all 2 MiB, and a block's `bytes()` would no longer be what was asked). Take a free block only when its size equals `bytes`; else a new segment of `bytes`",
                size(f.bytes),
                f.addr
            ),
        ));
    }
    new_segment(&s, &f, MIB)?;
    s.free(e, "e")?;
    s.free(f, "f")?;
    Ok(())
}

/// A new allocator, dropped without a call, makes no device call.
fn untouched(ctx: &Ctx) -> Result<(), Failure> {
    let mut s = Session::open(ctx, 0)?;
    s.close();
    let made: Vec<_> = s
        .calls
        .iter()
        .flat_map(|c| c.entries.iter().map(move |e| (c, e)))
        .filter(|(_, e)| matches!(e.op, OpKind::AllocSegment | OpKind::EventRecord))
        .collect();
    match made.first() {
        None => Ok(()),
        Some((call, e)) => Err(Failure::new(
            "an allocator that was never asked for a block to ask the device for nothing",
            format!(
                "{} made {}: an allocator holds no memory and records no event until a `malloc` or a `free` needs one",
                call.what,
                describe(e)
            ),
        )
        .at(e.site)),
    }
}

/// The last call (a `malloc`) asked for exactly one segment, of `bytes`,
/// and handed it out whole.
fn new_segment(s: &Session, block: &Held, bytes: usize) -> Result<(), Failure> {
    let call = s.last();
    let segments = call.of(OpKind::AllocSegment);
    let asked: Vec<String> = segments.iter().map(|e| size(e.bytes as usize)).collect();
    if segments.len() == 1 && segments[0].bytes == bytes as u64 && block.bytes == bytes {
        return Ok(());
    }
    let fail = Failure::new(
        EXPECTED,
        format!(
            "{}, with nothing free of that size, asked the device for {} and handed out a block of {}: a request with no free block of its size gets one new segment of exactly its size",
            call.what,
            if asked.is_empty() {
                "no segment".into()
            } else {
                asked.join(" and ")
            },
            size(block.bytes)
        ),
    );
    Err(match segments.first() {
        Some(e) => fail.at(e.site),
        None => fail,
    })
}

/// `call` recorded no event; `why` says why none is needed.
fn no_event(s: &Session, why: &str) -> Result<(), Failure> {
    let call = s.last();
    match call.of(OpKind::EventRecord).first() {
        None => Ok(()),
        Some(e) => Err(Failure::new(
            EXPECTED,
            format!(
                "{} recorded an event on {}, {}: {why}. The event completes only when the owner's earlier work has, so the block waits for nothing it needs to",
                call.what,
                s.name_of(e.stream),
                describe(e)
            ),
        )
        .at(e.site)),
    }
}

/// The last call (a `malloc` of 1 MiB) handed out the block at `first`
/// again, freed by `after` (block `name`), and asked for no segment.
fn reused(s: &Session, block: &Held, first: u64, name: &str, after: &str) -> Result<(), Failure> {
    let call = s.last();
    if block.addr == first && call.of(OpKind::AllocSegment).is_empty() {
        return Ok(());
    }
    let queried = call.of(OpKind::EventQuery);
    let why = if queried.is_empty() {
        "the free list holds it".to_string()
    } else {
        format!(
            "no event stands between it and the owner, yet the call asked one ({})",
            describe(queried[0])
        )
    };
    let fail = Failure::new(
        EXPECTED,
        format!(
            "after {after}, {} got {} at {:#x} instead of `{name}`'s block at {first:#x}: the owner's work on the new block runs after its work on the old one, so the freed block is safe to hand out at once, and {why}",
            call.what,
            match call.of(OpKind::AllocSegment).first() {
                Some(e) => format!("a new segment ({})", describe(e)),
                None => "a block".into(),
            },
            block.addr
        ),
    );
    Err(match call.of(OpKind::AllocSegment).first() {
        Some(e) => fail.at(e.site),
        None => fail,
    })
}
