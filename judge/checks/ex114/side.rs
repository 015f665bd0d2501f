//! A block another stream reads waits for it: the block is noted for a
//! slow reader on another stream and freed while the reader still runs;
//! the owner writes whatever the next `malloc` gives it. The reader's sum
//! and the race checker say whether the reuse was too early; the trace of
//! `record_stream`, `free` and `malloc` says why.

use super::support::{MIB, N, SLOW, Session, describe, race_lines, size};
use gpu::OpKind;
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str = "a block noted with `record_stream` for a stream still reading it to stay pending at `free`: the next `malloc` of its size gets other memory, the reader's sum is exact and the race checker finds nothing";

pub(super) fn a_block_another_stream_reads_waits(ctx: &Ctx) -> Result<(), Failure> {
    let mut s = Session::open(ctx, 1)?;
    let mut a = s.malloc("a", MIB)?;
    s.fill(&a, 1.0)?;
    s.record_stream(&mut a, "a", 1);
    let out = s.slow_read(1, &a, SLOW)?;
    let first = a.addr;
    s.free(a, "a")?;
    let b = s.malloc("b", MIB)?;
    s.fill(&b, 999.0)?;
    let sum = s.read(1, &out)?;
    let races = s.races();
    ctx.save_trace("side-reader", &s.device);
    if sum == N as f32 && races.is_empty() {
        return Ok(());
    }
    let seen = format!(
        "side1's reader summed {sum} instead of {N}{}",
        if races.is_empty() {
            String::new()
        } else {
            format!(", and the race checker saw {} race(s)", races.len())
        }
    );
    let fail = if b.addr == first {
        too_early(&s, &seen)
    } else {
        Failure::new(
            EXPECTED,
            format!(
                "{seen}, though `b = malloc(1 MiB)` got other memory ({:#x}, {}): something else wrote `a`'s block while side1 read it",
                b.addr,
                size(b.bytes)
            ),
        )
    };
    Err(fail.detail(race_lines(&races)))
}

/// `b` got `a`'s block while side1 still read it: the cause, from the trace.
fn too_early(s: &Session, seen: &str) -> Failure {
    let noted = s.call("`record_stream(&mut a, &side1)`");
    let freed = s.call("`free(a)`");
    let malloc = s.call("`b = malloc(1 MiB)`");
    let side = s.side[0].id();
    let head = format!(
        "{seen}: `b = malloc(1 MiB)` handed out `a`'s block while side1's slow reader, queued after `record_stream(&mut a, &side1)` and before `free(a)`, still read it, so the owner's fill of 999.0 landed under the read"
    );
    let records = freed.of(OpKind::EventRecord);
    let on_side = records.iter().find(|e| e.stream == Some(side));
    if let Some(early) = noted.of(OpKind::EventRecord).first()
        && on_side.is_none()
    {
        return Failure::new(
            EXPECTED,
            format!(
                "{head}. The event was recorded in `record_stream`, {}, before the reader was queued: it completed at once and covered none of the reader's work. Record it in `free`, which is when the block's last use is known to be queued",
                describe(early)
            ),
        )
        .at(early.site);
    }
    if on_side.is_none() {
        if let Some(wrong) = records.first() {
            return Failure::new(
                EXPECTED,
                format!(
                    "{head}. `free(a)` recorded its event on the block's own stream (the owner), {}, instead of on side1, the stream `record_stream` noted: an event on the owner completes when the owner's work has, whatever side1 still does. Record one event on each noted stream",
                    describe(wrong)
                ),
            )
            .at(wrong.site);
        }
        return Failure::new(
            EXPECTED,
            format!(
                "{head}. `free(a)` recorded no event, so the block went back to the free list at once: the note `record_stream(&mut a, &side1)` made was missed (not kept on the block, or not read at `free`). At `free`, record one event on each noted stream and keep the block pending"
            ),
        );
    }
    match malloc.of(OpKind::EventQuery).first() {
        None => Failure::new(
            EXPECTED,
            format!(
                "{head}. `free(a)` recorded the event on side1 as it should, but `b = malloc(1 MiB)` asked no event before handing the block out: the pending block went to the free list without its event, or `malloc` took it from the pending list. A pending block comes back only once `query` says each of its events has completed"
            ),
        ),
        Some(q) => Failure::new(
            EXPECTED,
            format!(
                "{head}. `free(a)` recorded the event on side1 as it should, and `b = malloc(1 MiB)` asked it ({}), which had not completed, yet handed the block out: a pending block comes back only once every one of its events has completed",
                describe(q)
            ),
        )
        .at(q.site),
    }
}
