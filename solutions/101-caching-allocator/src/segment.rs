//! Segments and their blocks: where every byte of reserved memory is.
//!
//! A segment is one piece of memory from the driver. Its blocks tile it with
//! no gap: the first starts at the segment's base, each next one where the
//! previous ends. Blocks are kept in one map ordered by address, so a
//! block's neighbours are the entries before and after it, when they lie in
//! the same segment. This module only keeps the layout; the allocator
//! decides when to split and when to merge.

use crate::{BlockInfo, BlockState, Pool, SegmentInfo, StreamId};
use std::collections::{BTreeMap, BTreeSet};

/// One block.
#[derive(Debug)]
pub(crate) struct BlockNode {
    /// The base of its segment.
    pub(crate) segment: u64,
    /// Its size in bytes.
    pub(crate) size: usize,
    /// Allocated, pending free or free.
    pub(crate) state: BlockState,
    /// Other streams recorded with `record_stream` while it is allocated.
    pub(crate) uses: BTreeSet<StreamId>,
    /// Events still to complete before a pending-free block is reusable.
    pub(crate) pending_events: usize,
}

/// One segment: where it came from and whom it serves.
#[derive(Debug)]
pub(crate) struct SegmentNode {
    /// Its size in bytes.
    pub(crate) size: usize,
    /// The stream whose `malloc` created it.
    pub(crate) stream: StreamId,
    /// The pool it serves.
    pub(crate) pool: Pool,
}

/// Every segment and every block, by address.
#[derive(Debug, Default)]
pub(crate) struct Segments {
    segments: BTreeMap<u64, SegmentNode>,
    blocks: BTreeMap<u64, BlockNode>,
}

impl Segments {
    /// Adds the segment `[base, base + size)` as one free block.
    pub(crate) fn add(&mut self, base: u64, size: usize, stream: StreamId, pool: Pool) {
        self.segments
            .insert(base, SegmentNode { size, stream, pool });
        let block = BlockNode {
            segment: base,
            size,
            state: BlockState::Free,
            uses: BTreeSet::new(),
            pending_events: 0,
        };
        self.blocks.insert(base, block);
    }

    /// Removes the segment at `base`, which must be one free block.
    pub(crate) fn remove(&mut self, base: u64) -> SegmentNode {
        debug_assert!(self.is_wholly_free(base));
        self.blocks.remove(&base);
        self.segments
            .remove(&base)
            .expect("a segment starts at `base`")
    }

    /// The block at `addr`, if one starts there.
    pub(crate) fn block(&self, addr: u64) -> Option<&BlockNode> {
        self.blocks.get(&addr)
    }

    /// The block at `addr`, to change.
    pub(crate) fn block_mut(&mut self, addr: u64) -> Option<&mut BlockNode> {
        self.blocks.get_mut(&addr)
    }

    /// The segment holding the block at `addr`.
    pub(crate) fn segment_of(&self, addr: u64) -> &SegmentNode {
        let base = self.blocks[&addr].segment;
        &self.segments[&base]
    }

    /// Cuts the block at `addr` after its first `size` bytes; the rest
    /// becomes a free block at the higher address, which is returned.
    pub(crate) fn split(&mut self, addr: u64, size: usize) -> u64 {
        let block = self
            .blocks
            .get_mut(&addr)
            .expect("a block starts at `addr`");
        debug_assert!(size < block.size);
        let rest = BlockNode {
            segment: block.segment,
            size: block.size - size,
            state: BlockState::Free,
            uses: BTreeSet::new(),
            pending_events: 0,
        };
        block.size = size;
        let rest_addr = addr + size as u64;
        self.blocks.insert(rest_addr, rest);
        rest_addr
    }

    /// The block just before the one at `addr` in the same segment.
    pub(crate) fn prev(&self, addr: u64) -> Option<u64> {
        let segment = self.blocks[&addr].segment;
        let (&prev, block) = self.blocks.range(..addr).next_back()?;
        (block.segment == segment).then_some(prev)
    }

    /// The block just after the one at `addr` in the same segment.
    pub(crate) fn next(&self, addr: u64) -> Option<u64> {
        let block = &self.blocks[&addr];
        let next = addr + block.size as u64;
        let neighbour = self.blocks.get(&next)?;
        (neighbour.segment == block.segment).then_some(next)
    }

    /// Joins the block at `back` onto the one at `front`, which it follows.
    pub(crate) fn absorb(&mut self, front: u64, back: u64) {
        let back = self.blocks.remove(&back).expect("a block starts at `back`");
        let front = self
            .blocks
            .get_mut(&front)
            .expect("a block starts at `front`");
        debug_assert_eq!(front.segment, back.segment);
        front.size += back.size;
    }

    /// Whether the segment at `base` is a single free block.
    pub(crate) fn is_wholly_free(&self, base: u64) -> bool {
        let (Some(segment), Some(block)) = (self.segments.get(&base), self.blocks.get(&base))
        else {
            return false;
        };
        block.state == BlockState::Free && block.size == segment.size
    }

    /// The bases of the segments that are a single free block.
    pub(crate) fn wholly_free(&self) -> Vec<u64> {
        self.segments
            .keys()
            .copied()
            .filter(|&base| self.is_wholly_free(base))
            .collect()
    }

    /// Count and bytes of the free blocks inside segments of several blocks.
    pub(crate) fn inactive_split(&self) -> (usize, usize) {
        self.blocks
            .values()
            .filter(|b| b.state == BlockState::Free && b.size < self.segments[&b.segment].size)
            .fold((0, 0), |(n, bytes), b| (n + 1, bytes + b.size))
    }

    /// Every segment with its blocks, by address.
    pub(crate) fn snapshot(&self) -> Vec<SegmentInfo> {
        self.segments
            .iter()
            .map(|(&base, segment)| SegmentInfo {
                base,
                size: segment.size,
                stream: segment.stream,
                pool: segment.pool,
                blocks: self.blocks_of(base, segment.size),
            })
            .collect()
    }

    fn blocks_of(&self, base: u64, size: usize) -> Vec<BlockInfo> {
        self.blocks
            .range(base..base + size as u64)
            .map(|(&addr, block)| BlockInfo {
                addr,
                size: block.size,
                state: block.state,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_then_absorb_restores_the_segment() {
        let mut segments = Segments::default();
        segments.add(100, 1000, StreamId(0), Pool::Small);
        let rest = segments.split(100, 300);
        assert_eq!(rest, 400);
        segments.block_mut(100).unwrap().state = BlockState::Allocated;
        assert_eq!(segments.next(100), Some(400));
        assert_eq!(segments.prev(400), Some(100));
        assert_eq!(segments.prev(100), None);
        assert_eq!(segments.inactive_split(), (1, 700));
        segments.block_mut(100).unwrap().state = BlockState::Free;
        segments.absorb(100, 400);
        assert!(segments.is_wholly_free(100));
        assert_eq!(segments.wholly_free(), [100]);
    }

    #[test]
    fn neighbours_stop_at_the_segment_edge() {
        let mut segments = Segments::default();
        segments.add(0, 512, StreamId(0), Pool::Small);
        segments.add(512, 512, StreamId(0), Pool::Small);
        assert_eq!(segments.next(0), None);
        assert_eq!(segments.prev(512), None);
    }
}
