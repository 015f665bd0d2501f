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
        // TODO: shrink the block at `addr` to `size` bytes, and insert a new
        // free block (same segment, no uses, no pending events) for the rest
        // at `addr + size`. Return that address.
        todo!("split the block at {addr:#x} after {size} bytes")
    }

    /// The block just before the one at `addr` in the same segment.
    pub(crate) fn prev(&self, addr: u64) -> Option<u64> {
        // TODO: the last block below `addr` (`range(..addr).next_back()`), if
        // it lies in the same segment.
        todo!("find the block before {addr:#x}")
    }

    /// The block just after the one at `addr` in the same segment.
    pub(crate) fn next(&self, addr: u64) -> Option<u64> {
        // TODO: the block starting where this one ends, if it lies in the
        // same segment (another segment may start right there).
        todo!("find the block after {addr:#x}")
    }

    /// Joins the block at `back` onto the one at `front`, which it follows.
    pub(crate) fn absorb(&mut self, front: u64, back: u64) {
        // TODO: remove the block at `back` and add its size to `front`.
        todo!("merge the block at {back:#x} into the one at {front:#x}")
    }

    /// Whether the segment at `base` is a single free block.
    pub(crate) fn is_wholly_free(&self, base: u64) -> bool {
        // TODO: true when the block at `base` is free and as large as its
        // segment; false when no segment starts at `base`.
        todo!("tell whether the segment at {base:#x} is one free block")
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
        // TODO: count the free blocks smaller than their segment, and sum
        // their sizes. A pending-free block is not inactive.
        todo!("count the inactive split blocks")
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
