//! Segment seams against expandable segments: one script run on the
//! reference allocator, where each segment is its own driver allocation, and
//! on [`Expandable`], a sketch of PyTorch's expandable segments (one range
//! for the stream and pool, mapped in 20 MiB pages as it grows), each drawn
//! like the chapter's other layouts and stacked in one figure.
//!
//! The sketch does only what the script needs: best fit, split, merge, and
//! mapping pages at the end. It never unmaps a page (the real allocator
//! unmaps wholly free pages when the device is full), and says so by
//! refusing instead.

use super::{MIB, S0, Script, Step, draw};
use caching_allocator::{BlockInfo, BlockState, Pool, SegmentInfo};

/// The large pool's page: what an expandable segment maps at a time.
const PAGE: usize = 20 * MIB;
/// The device both runs have.
const DEVICE: usize = 40 * MIB;

/// One expandable segment at address 0: its blocks tile `[0, mapped)`.
struct Expandable {
    capacity: usize,
    blocks: Vec<BlockInfo>,
}

impl Expandable {
    fn new(capacity: usize) -> Self {
        Self {
            capacity,
            blocks: Vec::new(),
        }
    }

    fn mapped(&self) -> usize {
        self.blocks.iter().map(|b| b.size).sum()
    }

    /// The best-fitting free block, split; pages are mapped at the end when
    /// none fits. `None` when the device has no room for them.
    fn malloc(&mut self, bytes: usize) -> Option<u64> {
        let bytes = bytes.next_multiple_of(512);
        let fit = self
            .blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| b.state == BlockState::Free && b.size >= bytes)
            .min_by_key(|(_, b)| (b.size, b.addr))
            .map(|(i, _)| i);
        let i = match fit {
            Some(i) => i,
            None => self.grow(bytes)?,
        };
        let block = &mut self.blocks[i];
        let (addr, rest) = (block.addr, block.size - bytes);
        block.size = bytes;
        block.state = BlockState::Allocated;
        if rest >= 512 {
            let free = BlockInfo {
                addr: addr + bytes as u64,
                size: rest,
                state: BlockState::Free,
            };
            self.blocks.insert(i + 1, free);
        }
        Some(addr)
    }

    /// Maps pages at the end until the free block there holds `bytes`, and
    /// returns that block's index.
    fn grow(&mut self, bytes: usize) -> Option<usize> {
        let tail = match self.blocks.last() {
            Some(b) if b.state == BlockState::Free => b.size,
            _ => 0,
        };
        let more = (bytes - tail).next_multiple_of(PAGE);
        if self.mapped() + more > self.capacity {
            return None;
        }
        if tail == 0 {
            let addr = self.mapped() as u64;
            let state = BlockState::Free;
            self.blocks.push(BlockInfo {
                addr,
                size: 0,
                state,
            });
        }
        let last = self.blocks.len() - 1;
        self.blocks[last].size += more;
        Some(last)
    }

    /// Frees the block at `addr` and merges it with free neighbours.
    fn free(&mut self, addr: u64) {
        let mut i = self
            .blocks
            .iter()
            .position(|b| b.addr == addr)
            .expect("the script frees its own blocks");
        self.blocks[i].state = BlockState::Free;
        let free = |b: &BlockInfo| b.state == BlockState::Free;
        if i + 1 < self.blocks.len() && free(&self.blocks[i + 1]) {
            self.blocks[i].size += self.blocks.remove(i + 1).size;
        }
        if i > 0 && free(&self.blocks[i - 1]) {
            self.blocks[i - 1].size += self.blocks.remove(i).size;
            i -= 1;
        }
        debug_assert!(self.blocks[i].state == BlockState::Free);
    }

    /// The layout, as the reference allocator's snapshot would give it.
    fn snapshot(&self) -> Vec<SegmentInfo> {
        vec![SegmentInfo {
            base: 0,
            size: self.mapped(),
            stream: S0,
            pool: Pool::Large,
            blocks: self.blocks.clone(),
        }]
    }
}

/// The script on the reference allocator: the second 8 MiB pair gets a
/// segment of its own, and the 16 MiB request finds 20 free MiB in a row
/// that a seam cuts in two.
fn with_segments() -> Vec<Step> {
    let mut s = Script::new(DEVICE);
    let [_a, b, c, _d] = ["A", "B", "C", "D"].map(|n| s.malloc(n, 8 * MIB, S0));
    s.step("A, B, C, D = malloc(8 MiB) × 4");
    s.free(b);
    s.free(c);
    s.step("free(B); free(C)");
    let failed = s.try_malloc("E", 16 * MIB, S0);
    assert!(failed.is_err(), "the seam must refuse 16 MiB");
    let step = s.step("E = malloc(16 MiB): out of memory");
    step.note = Some("12 + 8 MiB free side by side, but in two segments".into());
    step.ghost = Some((8 * MIB as u64, 16 * MIB));
    s.steps
}

/// The same script on one expandable segment: the blocks tile the pages,
/// the two freed blocks merge, and the request fits.
fn expandable() -> Vec<Step> {
    let mut run = Run {
        segment: Expandable::new(DEVICE),
        names: Vec::new(),
        steps: Vec::new(),
    };
    let [_a, b, c, _d] = ["A", "B", "C", "D"].map(|n| run.malloc(n, 8 * MIB));
    run.step("A, B, C, D = malloc(8 MiB) × 4", None);
    run.segment.free(b);
    run.segment.free(c);
    run.step("free(B); free(C)", None);
    run.malloc("E", 16 * MIB);
    run.step(
        "E = malloc(16 MiB)",
        Some("B and C merged into the 16 MiB it takes"),
    );
    run.steps
}

/// Records steps of a script run on one [`Expandable`], as [`Script`] does
/// on the reference allocator.
struct Run {
    segment: Expandable,
    names: Vec<(u64, String)>,
    steps: Vec<Step>,
}

impl Run {
    fn malloc(&mut self, name: &str, bytes: usize) -> u64 {
        let addr = self.segment.malloc(bytes).expect("the script fits");
        self.names.retain(|(a, _)| *a != addr);
        self.names.push((addr, name.to_string()));
        addr
    }

    fn step(&mut self, label: &str, note: Option<&str>) {
        self.steps.push(Step {
            label: label.to_string(),
            note: note.map(str::to_string),
            segments: self.segment.snapshot(),
            names: self.names.clone(),
            ghost: None,
        });
    }
}

/// The figure: the reference allocator's layouts above the sketch's.
pub(in crate::figures) fn seams() -> String {
    let top = draw(
        "With segments: a seam between two 20 MiB segments (40 MiB device)",
        &with_segments(),
        4 * MIB,
    );
    let bottom = draw(
        "With expandable segments (a sketch): one segment, mapped in 20 MiB pages",
        &expandable(),
        4 * MIB,
    )
    .replace(
        "a segment (one driver allocation)",
        "the expandable segment (its pages mapped as it grows)",
    );
    stack(&top, &bottom)
}

/// Two figures of the same width, one above the other, in one SVG.
fn stack(top: &str, bottom: &str) -> String {
    let height = |svg: &str| -> f64 {
        let rest = &svg[svg.find(" height=\"").expect("a height") + 9..];
        rest[..rest.find('"').expect("a closed height")]
            .parse()
            .expect("a number")
    };
    let (h1, h2) = (height(top), height(bottom));
    let width = super::WIDTH;
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{total}\" viewBox=\"0 0 {width} {total}\" role=\"img\" aria-label=\"Segment seams against expandable segments\">\n{top}{}</svg>\n",
        bottom.replacen("<svg ", &format!("<svg y=\"{h1}\" "), 1),
        total = h1 + h2,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sketch_maps_pages_at_the_end_and_merges_on_free() {
        let mut e = Expandable::new(DEVICE);
        let a = e.malloc(8 * MIB).unwrap();
        let b = e.malloc(16 * MIB).unwrap();
        assert_eq!((a, b, e.mapped()), (0, 8 * MIB as u64, 40 * MIB));
        e.free(a);
        e.free(b);
        assert_eq!(e.blocks.len(), 1);
        assert!(e.malloc(41 * MIB).is_none());
    }
}
