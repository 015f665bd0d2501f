//! The CPU never waits in `malloc`, `record_stream` or `free`: the trace of
//! every call of the allocator in the other checks' scripts, each kind of
//! call that makes the CPU wait with its own cause.

use super::support::{Call, MIB, SLOW, Session, describe};
use gpu::{OpKind, TraceEntry};
use judge_harness::{Ctx, Failure};

/// What the check expects, in words.
const EXPECTED: &str = "`malloc`, `record_stream` and `free` to return without waiting for the GPU: events asked with `query`, never waited for";

pub(super) fn the_cpu_never_waits(ctx: &Ctx) -> Result<(), Failure> {
    let mut s = Session::open(ctx, 1)?;
    let a = s.malloc("a", MIB)?;
    s.fill(&a, 1.0)?;
    s.free(a, "a")?;
    let mut b = s.malloc("b", MIB)?;
    s.record_stream(&mut b, "b", 1);
    let out = s.slow_read(1, &b, SLOW)?;
    s.free(b, "b")?;
    let c = s.malloc("c", MIB)?;
    let d = s.malloc("d", MIB)?;
    s.free(c, "c")?;
    s.free(d, "d")?;
    s.close();
    let _ = s.read(1, &out)?;
    never_waits(&s.calls)
}

/// The check on the calls of one script.
fn never_waits(calls: &[Call]) -> Result<(), Failure> {
    let found = calls
        .iter()
        .filter(|c| c.what != "the drop of the allocator")
        .flat_map(|c| c.entries.iter().map(move |e| (c, e)))
        .find_map(|(c, e)| cause(e).map(|why| (c, e, why)));
    match found {
        None => Ok(()),
        Some((call, e, why)) => Err(Failure::new(
            EXPECTED,
            format!("{} made {}: {why}", call.what, describe(e)),
        )
        .at(e.site)),
    }
}

/// Why `e` makes the CPU wait, if it does.
pub(super) fn cause(e: &TraceEntry) -> Option<String> {
    Some(match e.op {
        OpKind::EventSynchronize => "the CPU waits for the event, so the call lasts as long as the other stream's work (here a 20 ms reader). Ask it with `query`, which never blocks, and leave a block whose event has not completed pending: the request gets a new segment meanwhile".into(),
        OpKind::StreamSynchronize => "the CPU waits until the whole stream is idle, later work included. A pending block's event says when the block's last use is done; ask it with `query`, never wait".into(),
        OpKind::DeviceSynchronize => "the CPU waits until every stream of the device is idle. Ask the pending blocks' events with `query` instead".into(),
        OpKind::FreeSegment => "`free_segment` (`cuMemFree`) waits until the whole device is idle. A caching allocator keeps its segments: a freed block goes to the free list or the pending list, never back to the driver".into(),
        _ => {
            let reason = e.blocking?;
            format!("a call that can make the CPU wait ({reason}): an allocator's calls only ask and queue")
        }
    })
}
