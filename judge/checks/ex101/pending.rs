//! The random workload's model of event completion across streams: which
//! freed blocks must still be pending, from the calls alone.
//!
//! A block freed while streams other than its own were recorded on it
//! (`record_stream`) stays pending until each of those streams has finished
//! the work it had queued at the free, and until the allocator notices (its
//! next `malloc`, which polls first, or `empty_cache` or a retry, which
//! wait). Every other freed block is free at once. After each step the
//! snapshot's pending blocks must be exactly the model's.

use super::support::{at, bytes};
use caching_allocator::{Block, BlockState, SegmentInfo, StreamId};
use judge_harness::Failure;
use std::collections::{BTreeMap, BTreeSet};

/// What the model knows.
#[derive(Default)]
pub(super) struct Pending {
    /// The streams other than its own recorded on each live block, by address.
    recorded: BTreeMap<u64, BTreeSet<u32>>,
    /// Freed blocks still pending: size and the recorded streams that have
    /// not finished since the free (empty once all have, until noticed).
    freed: BTreeMap<u64, (usize, BTreeSet<u32>)>,
    /// Live blocks whose own stream was recorded on them.
    own: BTreeSet<u64>,
    /// Why each freed block that is not pending is free, by address.
    released: BTreeMap<u64, Released>,
}

/// Why a freed block is not pending.
#[derive(Clone, Copy)]
pub(super) enum Released {
    /// Only its own stream was recorded on it.
    OwnStream,
    /// No stream was recorded on it since it was handed out.
    NothingRecorded,
    /// Its streams all finished, and the allocator has noticed.
    Noticed,
    /// `empty_cache` waited for every pending free.
    EmptyCache,
    /// A `malloc` was refused a segment and retried, which waits for every
    /// pending free first.
    Retried,
}

impl Released {
    fn why(self) -> &'static str {
        match self {
            Self::OwnStream => {
                "only its own stream was recorded on it, and its stream's order already protects it: it is free at once"
            }
            Self::NothingRecorded => {
                "no stream was recorded on it since it was handed out (`record_stream`'s notes end with the allocation that made them): it is free at once"
            }
            Self::Noticed => {
                "every stream recorded on it has finished, and a malloc or empty_cache has polled their events since: it is free again (each stream's events are polled on their own, whatever the other streams do)"
            }
            Self::EmptyCache => {
                "`empty_cache` first waits for every pending free, so the block is free again"
            }
            Self::Retried => {
                "the malloc was refused a segment and retried, and the retry first waits for every pending free (as empty_cache does) before it returns the wholly free segments: the block is free again"
            }
        }
    }
}

impl Pending {
    /// `block` was handed out: nothing is recorded on it yet.
    pub(super) fn handed_out(&mut self, block: &Block) {
        self.recorded.insert(block.addr(), BTreeSet::new());
        self.own.remove(&block.addr());
    }

    /// `record_stream(block, stream)`: the block's own stream is ignored.
    pub(super) fn recorded(&mut self, block: &Block, stream: StreamId) {
        if stream != block.stream() {
            self.recorded
                .entry(block.addr())
                .or_default()
                .insert(stream.0);
        } else {
            self.own.insert(block.addr());
        }
    }

    /// The streams other than its own noted on the live block at `addr`.
    pub(super) fn noted(&self, addr: u64) -> BTreeSet<u32> {
        self.recorded.get(&addr).cloned().unwrap_or_default()
    }

    /// The blocks that must be pending now, by address, with their sizes.
    pub(super) fn blocks(&self) -> BTreeMap<u64, usize> {
        self.freed
            .iter()
            .map(|(&a, &(size, _))| (a, size))
            .collect()
    }

    /// `free(block)`: pending if other streams were recorded on it.
    pub(super) fn freed(&mut self, addr: u64, size: usize) {
        let streams = self.recorded.remove(&addr).unwrap_or_default();
        let own = self.own.remove(&addr);
        if streams.is_empty() {
            let why = if own {
                Released::OwnStream
            } else {
                Released::NothingRecorded
            };
            self.released.insert(addr, why);
        } else {
            self.freed.insert(addr, (size, streams));
        }
    }

    /// `finish(stream)`: its events recorded so far are complete.
    pub(super) fn finished(&mut self, stream: StreamId) {
        for (_, streams) in self.freed.values_mut() {
            streams.remove(&stream.0);
        }
    }

    /// A `malloc` that polls first: blocks whose streams all finished are
    /// free again.
    pub(super) fn polled(&mut self) {
        let released = &mut self.released;
        self.freed.retain(|&addr, (_, streams)| {
            let done = streams.is_empty();
            if done {
                released.insert(addr, Released::Noticed);
            }
            !done
        });
    }

    /// `empty_cache`, or a retry after a refused segment (`why`): it waits
    /// for every pending free.
    pub(super) fn waited(&mut self, why: Released) {
        for addr in std::mem::take(&mut self.freed).into_keys() {
            self.released.insert(addr, why);
        }
    }

    /// Fails unless the snapshot's pending blocks are exactly the model's.
    pub(super) fn check(&self, snapshot: &[SegmentInfo]) -> Result<(), Failure> {
        let pending: BTreeMap<u64, usize> = snapshot
            .iter()
            .flat_map(|s| &s.blocks)
            .filter(|b| b.state == BlockState::PendingFree)
            .map(|b| (b.addr, b.size))
            .collect();
        let expected = "the pending blocks of the snapshot to be exactly the blocks freed while a stream other than their own was recorded on them, until each such stream has finished and a malloc or empty_cache has noticed";
        for (&addr, (size, streams)) in &self.freed {
            if pending.get(&addr) != Some(size) {
                let why = if streams.is_empty() {
                    "its recorded streams have all finished, but no malloc or empty_cache has polled their events since: it stays pending until the allocator notices".to_string()
                } else {
                    format!(
                        "stream(s) {streams:?} recorded on it have not finished since the free: it stays pending until every stream recorded on it has finished"
                    )
                };
                return Err(Failure::new(
                    expected,
                    format!(
                        "the block of {} at {} is not pending",
                        bytes(*size),
                        at(addr)
                    ),
                )
                .detail(why));
            }
        }
        if let Some((&addr, &size)) = pending.iter().find(|(a, _)| !self.freed.contains_key(a)) {
            let why = self.released.get(&addr).map_or(
                "nothing freed it while another stream was recorded on it: it is not pending",
                |r| r.why(),
            );
            return Err(Failure::new(
                expected,
                format!("the block of {} at {} is pending", bytes(size), at(addr)),
            )
            .detail(why));
        }
        Ok(())
    }
}
