//! One call of the random workload and what it did: the call with its
//! inputs, the rule of the statement it broke (judged from the blocks
//! before and after it and from what it asked of the driver), and the
//! blocks it changed, so that a failure names the operation that broke an
//! invariant rather than only the invariant.
//!
//! Over 400 lines with its unit tests (the code is about 360): the rules of
//! one call share the block and segment descriptions, so they stay together.

use super::logged::Asked;
use super::support::{bytes, state};
use caching_allocator::{BlockInfo, BlockState, Pool, SMALL_SIZE, SegmentInfo, StreamId};
use judge_harness::Failure;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// A call of the random workload, with its inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Call {
    /// `malloc(size, stream)`.
    Malloc { size: usize, stream: StreamId },
    /// `free(block)`: the block, its own stream, and the other streams
    /// `record_stream` noted on it.
    Free {
        addr: u64,
        stream: StreamId,
        noted: BTreeSet<u32>,
    },
    /// `record_stream(block, stream)`.
    RecordStream { addr: u64, stream: StreamId },
    /// The simulated stream finishes its work (`SimDriver::finish`).
    Finish(StreamId),
    /// `empty_cache()`.
    EmptyCache,
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Malloc { size, stream } => write!(f, "malloc({size}, stream {})", stream.0),
            Self::Free { addr, .. } => write!(f, "free(block at {addr:#x})"),
            Self::RecordStream { addr, stream } => {
                write!(f, "record_stream(block at {addr:#x}, stream {})", stream.0)
            }
            Self::Finish(stream) => write!(f, "finish(stream {})", stream.0),
            Self::EmptyCache => f.write_str("empty_cache()"),
        }
    }
}

/// What one call did.
pub(super) struct Done<'a> {
    /// The call.
    pub(super) call: &'a Call,
    /// The snapshot before it.
    pub(super) before: &'a [SegmentInfo],
    /// The snapshot after it.
    pub(super) after: &'a [SegmentInfo],
    /// What it asked of the driver, in order.
    pub(super) asked: &'a [Asked],
    /// The block a `malloc` handed out: address and size.
    pub(super) handed: Option<(u64, usize)>,
    /// The blocks that must still be pending after it, by address, with
    /// their sizes (the model's).
    pub(super) pending: &'a BTreeMap<u64, usize>,
}

/// The first rule of the statement that `done` broke, as a failure that
/// names the call, what it did, and the rule.
pub(super) fn broken(done: &Done<'_>) -> Option<Failure> {
    events(done)
        .or_else(|| waited_in_malloc(done))
        .or_else(|| stream_and_pool(done))
        .or_else(|| merged_with_a_pending_block(done))
        .or_else(|| outside_its_segment(done))
}

/// A `malloc` waits for no event until the driver has refused it a segment
/// (the retry waits for the pending frees); before that it only polls.
fn waited_in_malloc(done: &Done<'_>) -> Option<Failure> {
    let Call::Malloc { .. } = done.call else {
        return None;
    };
    let refused = done
        .asked
        .iter()
        .position(|a| matches!(a, Asked::Segment { granted: false, .. }))
        .unwrap_or(done.asked.len());
    let waited: Vec<u32> = done.asked[..refused]
        .iter()
        .filter_map(|a| match a {
            Asked::Wait(s) => Some(s.0),
            _ => None,
        })
        .collect();
    if waited.is_empty() {
        return None;
    }
    Some(
        Failure::new(
            "malloc polls the pending frees' events and waits for none, unless the driver refused a segment (the retry waits)",
            format!(
                "`{}` waited for the event(s) of stream(s) {waited:?} (`wait_event`) before the driver refused anything",
                done.call
            ),
        )
        .detail(super::streams::MALLOC_DOES_NOT_WAIT),
    )
}

/// At `free`, one event on each stream noted with `record_stream`; no
/// event at any other call.
fn events(done: &Done<'_>) -> Option<Failure> {
    let recorded: Vec<u32> = done
        .asked
        .iter()
        .filter_map(|a| match a {
            Asked::Event(s) => Some(s.0),
            _ => None,
        })
        .collect();
    let call = done.call;
    let expected = "at free, one event on each stream noted with `record_stream` (other than the block's own), and no event at any other call";
    let (actual, why) = match call {
        Call::Free { stream, noted, .. } => {
            let mut sorted = recorded.clone();
            sorted.sort_unstable();
            if sorted == noted.iter().copied().collect::<Vec<_>>() {
                return None;
            }
            let own = recorded.iter().all(|&s| s == stream.0);
            match () {
                () if noted.is_empty() => (
                    format!("`{call}` recorded an event on stream(s) {recorded:?}, though no other stream was noted on the block since it was handed out"),
                    "a block used only by its own stream is free at once: its stream's order already protects it (`record_stream` of its own stream is ignored), and the notes of a block's earlier life end with its free".to_string(),
                ),
                () if recorded.is_empty() => (
                    format!("`{call}` recorded no event, though stream(s) {noted:?} used the block (`record_stream`)"),
                    "at free the allocator records one event on each noted stream, and the block stays pending until they complete: without them it is reused while those streams may still read it".to_string(),
                ),
                () if own => (
                    format!("`{call}` recorded its event(s) on the block's own stream {}, where stream(s) {noted:?} used it: the event went on the wrong stream", stream.0),
                    "the event marks where the noted stream's use of the block ends, so it goes on that stream (`record_event(noted)`); an event on the block's own stream completes when that stream is done, and says nothing about the other".to_string(),
                ),
                () => (
                    format!("`{call}` recorded events on stream(s) {recorded:?}, where the block was noted for stream(s) {noted:?}"),
                    "at free, one event on each stream noted with `record_stream`, each once".to_string(),
                ),
            }
        }
        _ if recorded.is_empty() => return None,
        Call::RecordStream { stream, .. } => (
            format!("`{call}` recorded an event on stream(s) {recorded:?} at once",),
            format!(
                "`record_stream` only notes the stream; its event is recorded at free, after all the work stream {} queued up to the free: an event recorded now completes while work queued later may still read the block",
                stream.0
            ),
        ),
        _ => (
            format!("`{call}` recorded an event on stream(s) {recorded:?}"),
            "only free records events, one on each stream noted on the block".to_string(),
        ),
    };
    Some(Failure::new(expected, actual).detail(why))
}

/// A `malloc` hands out a block of its own stream's cache and pool.
fn stream_and_pool(done: &Done<'_>) -> Option<Failure> {
    let (Call::Malloc { size, stream }, Some((addr, _))) = (done.call, done.handed) else {
        return None;
    };
    let segment = segment_of(done.after, addr)?;
    let call = done.call;
    if segment.stream != *stream {
        return Some(
            Failure::new(
                format!("`{call}` to hand out a block of stream {}'s own cache, or of a new segment of its own", stream.0),
                format!(
                    "`{call}` handed out the block at {addr:#x} from stream {}'s cache (its segment at {:#x} belongs to stream {})",
                    segment.stream.0, segment.base, segment.stream.0
                ),
            )
            .detail("free blocks are cached per stream: a stream's later work is not ordered after another stream's, so a block is only handed to the stream it belongs to"),
        );
    }
    let rounded = (*size).max(1).next_multiple_of(512);
    let pool = if rounded <= SMALL_SIZE {
        Pool::Small
    } else {
        Pool::Large
    };
    (segment.pool != pool).then(|| {
        Failure::new(
            format!("`{call}` to hand out a block of the {pool:?} pool"),
            format!(
                "`{call}` handed out the block at {addr:#x} of a {:?} segment for a request of {}",
                segment.pool,
                bytes(rounded)
            ),
        )
        .detail("a rounded request of up to 1 MiB is the small pool's, anything larger the large pool's, and the pools never share blocks")
    })
}

/// A block pending free merges with nothing until its events complete:
/// no call may absorb one of the blocks the model holds pending into a
/// free block (a freed block merges only with free neighbours).
fn merged_with_a_pending_block(done: &Done<'_>) -> Option<Failure> {
    let (merged, pending, size) = done.pending.iter().find_map(|(&addr, &size)| {
        let b = segment_of(done.after, addr)?
            .blocks
            .iter()
            .find(|b| contains(b, addr))?;
        let absorbed = b.state == BlockState::Free && (b.addr, b.size) != (addr, size);
        absorbed.then_some((b, addr, size))
    })?;
    let call = done.call;
    Some(
        Failure::new(
            "a freed block merged only with its free neighbours",
            format!(
                "`{call}` merged the pending block at {pending:#x} ({}) into a free block of {} at {:#x}",
                bytes(size),
                bytes(merged.size),
                merged.addr
            ),
        )
        .detail("a block pending free waits for another stream's event and merges with nothing until the event completes: only a neighbour that is free is absorbed"),
    )
}

/// Every block lies inside its segment: blocks never merge across
/// segments, and a segment's blocks are those of `[base, base + size)`.
fn outside_its_segment(done: &Done<'_>) -> Option<Failure> {
    let call = done.call;
    for s in done.after {
        let end = s.base + s.size as u64;
        let Some(b) = s
            .blocks
            .iter()
            .find(|b| b.addr < s.base || b.addr + b.size as u64 > end)
        else {
            continue;
        };
        let expected = "every block inside its segment";
        let failure = if done
            .after
            .iter()
            .any(|o| o.base == b.addr && o.base != s.base)
        {
            Failure::new(
                expected,
                format!(
                    "after `{call}`, the segment at {:#x} lists the block at {:#x}, the first block of the next segment, as its own too",
                    s.base, b.addr
                ),
            )
            .detail("a segment covers [base, base + size): the address base + size is already the next segment's, so its blocks are those below it")
        } else {
            Failure::new(
                expected,
                format!(
                    "`{call}` left a block of {} at {:#x} that runs past the end of its segment at {:#x} ({}): merged across segments",
                    bytes(b.size),
                    b.addr,
                    s.base,
                    bytes(s.size)
                ),
            )
            .detail("blocks never merge across segments: two segments the driver handed out side by side are still two, and each goes back to the driver whole")
        };
        return Some(failure);
    }
    None
}

/// The segment of `snapshot` holding `addr`.
fn segment_of(snapshot: &[SegmentInfo], addr: u64) -> Option<&SegmentInfo> {
    snapshot
        .iter()
        .find(|s| addr >= s.base && addr < s.base + s.size as u64)
}

fn contains(b: &BlockInfo, addr: u64) -> bool {
    addr >= b.addr && addr < b.addr + b.size as u64
}

/// The most lines of a diff.
const MOST: usize = 12;

/// The blocks a call changed: for each segment it touched, the blocks that
/// are gone (`-`) and the blocks that are new or changed (`+`), by address.
pub(super) fn changes(before: &[SegmentInfo], after: &[SegmentInfo]) -> String {
    let by_base = |s: &[SegmentInfo]| -> BTreeMap<u64, SegmentInfo> {
        s.iter().map(|s| (s.base, s.clone())).collect()
    };
    let (old, new) = (by_base(before), by_base(after));
    let bases: BTreeSet<u64> = old.keys().chain(new.keys()).copied().collect();
    let mut lines = Vec::new();
    for base in bases {
        match (old.get(&base), new.get(&base)) {
            (Some(s), None) => lines.push(format!("- {}: returned to the driver", segment(s))),
            (None, Some(s)) => {
                lines.push(format!("+ {}: new", segment(s)));
                lines.extend(s.blocks.iter().map(|b| format!("+   {}", block(b))));
            }
            (Some(o), Some(n)) if o.blocks != n.blocks => {
                lines.push(format!("  {}:", segment(n)));
                let mut rows: Vec<(u64, char, &BlockInfo)> = o
                    .blocks
                    .iter()
                    .filter(|b| !n.blocks.contains(b))
                    .map(|b| (b.addr, '-', b))
                    .chain(
                        n.blocks
                            .iter()
                            .filter(|b| !o.blocks.contains(b))
                            .map(|b| (b.addr, '+', b)),
                    )
                    .collect();
                rows.sort_by_key(|&(addr, sign, _)| (addr, sign == '+'));
                lines.extend(
                    rows.iter()
                        .map(|(_, sign, b)| format!("{sign}   {}", block(b))),
                );
            }
            _ => {}
        }
    }
    if lines.is_empty() {
        return "no block changed".into();
    }
    if lines.len() > MOST {
        let more = lines.len() - MOST;
        lines.truncate(MOST);
        lines.push(format!("… and {more} more lines"));
    }
    lines.join("\n")
}

fn segment(s: &SegmentInfo) -> String {
    format!(
        "{:?} segment at {:#x} ({}) of stream {}",
        s.pool,
        s.base,
        bytes(s.size),
        s.stream.0
    )
}

fn block(b: &BlockInfo) -> String {
    format!(
        "block at {:#x}: {} {}",
        b.addr,
        bytes(b.size),
        state(b.state)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use BlockState::{Allocated, Free, PendingFree};

    fn seg(
        base: u64,
        size: usize,
        stream: u32,
        blocks: &[(u64, usize, BlockState)],
    ) -> SegmentInfo {
        SegmentInfo {
            base,
            size,
            stream: StreamId(stream),
            pool: Pool::Small,
            blocks: blocks
                .iter()
                .map(|&(addr, size, state)| BlockInfo { addr, size, state })
                .collect(),
        }
    }

    const MB2: usize = 2 << 20;

    #[test]
    fn the_diff_lists_only_the_blocks_that_changed() {
        let before = [seg(
            0,
            MB2,
            0,
            &[(0, 512, Allocated), (512, MB2 - 512, Free)],
        )];
        let after = [
            seg(0, MB2, 0, &[(0, MB2, Free)]),
            seg(MB2 as u64, MB2, 1, &[(MB2 as u64, MB2, Allocated)]),
        ];
        assert_eq!(
            changes(&before, &after),
            "  Small segment at 0x0 (2 MiB) of stream 0:\n\
             -   block at 0x0: 512 B allocated\n\
             +   block at 0x0: 2 MiB free\n\
             -   block at 0x200: 1 MiB + 1023 KiB + 512 B free\n\
             + Small segment at 0x200000 (2 MiB) of stream 1: new\n\
             +   block at 0x200000: 2 MiB allocated"
        );
        assert_eq!(changes(&after, &after), "no block changed");
    }

    #[test]
    fn a_malloc_served_from_another_streams_cache_is_named() {
        let call = Call::Malloc {
            size: 1536,
            stream: StreamId(2),
        };
        let after = [seg(
            0,
            MB2,
            1,
            &[(0, 1536, Allocated), (1536, MB2 - 1536, Free)],
        )];
        let done = Done {
            call: &call,
            before: &[],
            after: &after,
            asked: &[],
            handed: Some((0, 1536)),
            pending: &BTreeMap::new(),
        };
        let failure = broken(&done).expect("a block of stream 1");
        assert_eq!(
            failure.actual,
            "`malloc(1536, stream 2)` handed out the block at 0x0 from stream 1's cache (its segment at 0x0 belongs to stream 1)"
        );
    }

    #[test]
    fn a_free_that_merges_a_pending_block_is_named() {
        let call = Call::Free {
            addr: 0x400,
            stream: StreamId(0),
            noted: BTreeSet::new(),
        };
        let before = [seg(
            0,
            MB2,
            0,
            &[
                (0, 1024, PendingFree),
                (0x400, 1024, Allocated),
                (0x800, MB2 - 2048, Free),
            ],
        )];
        let after = [seg(0, MB2, 0, &[(0, MB2, Free)])];
        let pending = BTreeMap::from([(0, 1024)]);
        let done = Done {
            call: &call,
            before: &before,
            after: &after,
            asked: &[],
            handed: None,
            pending: &pending,
        };
        let failure = broken(&done).expect("a merge with the pending block");
        assert_eq!(
            failure.actual,
            "`free(block at 0x400)` merged the pending block at 0x0 (1 KiB) into a free block of 2 MiB at 0x0"
        );
        let kept = [seg(
            0,
            MB2,
            0,
            &[(0, 1024, PendingFree), (0x400, MB2 - 1024, Free)],
        )];
        let done = Done {
            after: &kept,
            ..done
        };
        assert!(broken(&done).is_none(), "merged with the free block only");
    }

    #[test]
    fn an_event_on_the_blocks_own_stream_is_named() {
        let call = Call::Free {
            addr: 0,
            stream: StreamId(0),
            noted: BTreeSet::from([1]),
        };
        let snapshot = [seg(0, MB2, 0, &[(0, MB2, PendingFree)])];
        let done = Done {
            call: &call,
            before: &snapshot,
            after: &snapshot,
            asked: &[Asked::Event(StreamId(0))],
            handed: None,
            pending: &BTreeMap::new(),
        };
        let failure = broken(&done).expect("the wrong stream");
        assert!(
            failure
                .actual
                .ends_with("the event went on the wrong stream"),
            "{}",
            failure.actual
        );
        let right = Done {
            asked: &[Asked::Event(StreamId(1))],
            ..done
        };
        assert!(broken(&right).is_none());
    }

    #[test]
    fn an_event_at_record_stream_is_named() {
        let call = Call::RecordStream {
            addr: 0,
            stream: StreamId(2),
        };
        let done = Done {
            call: &call,
            before: &[],
            after: &[],
            asked: &[Asked::Event(StreamId(2))],
            handed: None,
            pending: &BTreeMap::new(),
        };
        let failure = broken(&done).expect("an early event");
        assert_eq!(
            failure.actual,
            "`record_stream(block at 0x0, stream 2)` recorded an event on stream(s) [2] at once"
        );
    }

    #[test]
    fn a_malloc_that_waits_before_a_refusal_is_named() {
        let call = Call::Malloc {
            size: 4096,
            stream: StreamId(0),
        };
        let done = |asked: &[Asked]| {
            let done = Done {
                call: &call,
                before: &[],
                after: &[],
                asked,
                handed: None,
                pending: &BTreeMap::new(),
            };
            waited_in_malloc(&done).map(|f| f.actual)
        };
        let refused = Asked::Segment {
            bytes: MB2,
            granted: false,
        };
        assert_eq!(
            done(&[Asked::Wait(StreamId(1))]).as_deref(),
            Some(
                "`malloc(4096, stream 0)` waited for the event(s) of stream(s) [1] (`wait_event`) before the driver refused anything"
            )
        );
        assert_eq!(done(&[refused, Asked::Wait(StreamId(1))]), None);
        assert_eq!(done(&[]), None);
    }

    #[test]
    fn blocks_past_their_segment_are_named_by_cause() {
        let call = Call::EmptyCache;
        let across = [
            seg(0, MB2, 0, &[(0, 2 * MB2, Free)]),
            seg(MB2 as u64, MB2, 0, &[]),
        ];
        let done = Done {
            call: &call,
            before: &[],
            after: &across,
            asked: &[],
            handed: None,
            pending: &BTreeMap::new(),
        };
        assert!(
            broken(&done)
                .expect("across")
                .actual
                .ends_with("merged across segments")
        );
        let twice = [
            seg(0, MB2, 0, &[(0, MB2, Free), (MB2 as u64, MB2, Free)]),
            seg(MB2 as u64, MB2, 0, &[(MB2 as u64, MB2, Free)]),
        ];
        let done = Done {
            after: &twice,
            ..done
        };
        assert!(
            broken(&done)
                .expect("twice")
                .actual
                .contains("the first block of the next segment")
        );
    }
}
