//! Shadow memory of the race checker: who last wrote and read each byte range.

use super::{AccessRecord, Actor, Clock, HOST_BASE, RaceKind, RaceReport, Range};
use crate::label::Label;
use crate::trace::CallSite;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Who made an access, and where (cheap to clone: the label is spelled out
/// only in a report).
#[derive(Clone, Debug)]
pub(super) struct Origin {
    pub(super) actor: Actor,
    pub(super) what: Label,
    pub(super) site: CallSite,
}

/// An access remembered in shadow memory.
#[derive(Clone, Debug)]
struct Past {
    epoch: u64,
    write: bool,
    origin: Origin,
}

impl Past {
    fn actor(&self) -> Actor {
        self.origin.actor
    }

    fn record(&self) -> AccessRecord {
        AccessRecord {
            actor: self.origin.actor,
            write: self.write,
            what: self.origin.what.to_string(),
            site: self.origin.site,
        }
    }
}

/// The history of one byte range `[start, end)`.
#[derive(Clone, Debug)]
struct Cell {
    end: u64,
    write: Option<Past>,
    /// The latest read of each actor since the last write.
    reads: Vec<Past>,
    /// Set when the range was freed and not yet written by a new owner:
    /// where, by whom, and what the freeing actor knew then. Accesses ordered before
    /// the free are safe to reuse after (the pool hands memory to another
    /// stream only once the free has completed).
    freed: Option<Freed>,
}

/// A free of a range: where, by whom, and what the freeing actor knew then.
#[derive(Clone, Debug)]
struct Freed {
    site: CallSite,
    by: Actor,
    clock: Rc<Clock>,
}

/// Byte ranges with their histories, by start address; ranges never overlap.
#[derive(Default)]
pub(super) struct Shadow {
    cells: BTreeMap<u64, Cell>,
}

impl Shadow {
    /// Checks `range` against the history, records it, and returns the races
    /// found (one per earlier call site).
    pub(super) fn access(
        &mut self,
        range: Range,
        epoch: u64,
        origin: &Origin,
        ordered: impl Fn(Actor, u64) -> bool,
    ) -> Vec<RaceReport> {
        let (start, end) = (range.addr, range.addr + range.bytes);
        self.split(start);
        self.split(end);
        self.fill_gaps(start, end);
        let now = Past {
            epoch,
            write: range.write,
            origin: origin.clone(),
        };
        let mut found: Vec<RaceReport> = Vec::new();
        for (&cell_start, cell) in self.cells.range_mut(start..end) {
            if let Some(report) = conflict(cell_start, cell, &now, range.write, &ordered)
                && !found
                    .iter()
                    .any(|r| r.previous.site == report.previous.site)
            {
                found.push(report);
            }
            record(cell, &now, range.write);
        }
        found
    }

    /// The latest uses of `[addr, addr + bytes)` (in each range, its reads
    /// since the last write, else that write) that `ordered` says are not
    /// ordered before a free of it: each with the range it covers, one per
    /// call site.
    pub(super) fn unordered_uses(
        &self,
        addr: u64,
        bytes: u64,
        ordered: impl Fn(Actor, u64) -> bool,
    ) -> Vec<(u64, u64, AccessRecord)> {
        let end = addr + bytes;
        let mut found: Vec<(u64, u64, AccessRecord)> = Vec::new();
        for (&start, cell) in self.cells.range(..end).rev() {
            if cell.end <= addr {
                break;
            }
            if cell.freed.is_some() {
                continue;
            }
            let unordered = cell
                .reads
                .iter()
                .chain(cell.write.iter())
                .find(|past| !ordered(past.actor(), past.epoch));
            if let Some(past) = unordered
                && !found.iter().any(|(_, _, r)| r.site == past.origin.site)
            {
                found.push((start.max(addr), cell.end.min(end), past.record()));
            }
        }
        found.reverse();
        found
    }

    /// Marks `[addr, addr + bytes)` as freed by `by` at `site`, knowing
    /// `clock`, keeping its history.
    pub(super) fn mark_freed(
        &mut self,
        (addr, bytes): (u64, u64),
        site: CallSite,
        by: Actor,
        clock: Clock,
    ) {
        let freed = Freed {
            site,
            by,
            clock: Rc::new(clock),
        };
        let end = addr + bytes;
        self.split(addr);
        self.split(end);
        for cell in self.cells.range_mut(addr..end).map(|(_, c)| c) {
            cell.freed = Some(freed.clone());
        }
    }

    /// Makes `at` a cell boundary if a cell spans it.
    fn split(&mut self, at: u64) {
        let Some((_, cell)) = self.cells.range_mut(..at).next_back() else {
            return;
        };
        if cell.end > at {
            let upper = Cell {
                end: cell.end,
                ..cell.clone()
            };
            cell.end = at;
            self.cells.insert(at, upper);
        }
    }

    /// Adds empty cells where `[start, end)` has none (cell boundaries at
    /// `start` and `end` already). Allocates only for the cells it adds.
    fn fill_gaps(&mut self, start: u64, end: u64) {
        let mut at = start;
        while at < end {
            let next = self.cells.range(at..end).next().map(|(&s, c)| (s, c.end));
            let gap_end = match next {
                Some((s, e)) if s == at => {
                    at = e;
                    continue;
                }
                Some((s, _)) => s,
                None => end,
            };
            let empty = Cell {
                end: gap_end,
                write: None,
                reads: Vec::new(),
                freed: None,
            };
            self.cells.insert(at, empty);
            at = gap_end;
        }
    }
}

/// The first earlier access of `cell` that `now` conflicts with and is not ordered after.
fn conflict(
    start: u64,
    cell: &Cell,
    now: &Past,
    write: bool,
    ordered: &impl Fn(Actor, u64) -> bool,
) -> Option<RaceReport> {
    let reads = if write { cell.reads.as_slice() } else { &[] };
    // The reads since the last write come first: they are the later accesses.
    let earlier = reads.iter().chain(cell.write.iter()).find(|past| {
        let before_the_free = cell
            .freed
            .as_ref()
            .is_some_and(|freed| freed.clock.get(past.actor().index()) >= past.epoch);
        !ordered(past.actor(), past.epoch) && !before_the_free
    })?;
    Some(RaceReport {
        kind: if cell.freed.is_some() {
            RaceKind::ReuseAfterFree
        } else {
            RaceKind::Unordered
        },
        addr: start,
        bytes: cell.end - start,
        host: start >= HOST_BASE,
        current: now.record(),
        previous: earlier.record(),
        freed_at: cell.freed.as_ref().map(|freed| freed.site),
        freed_by: cell.freed.as_ref().map(|freed| freed.by),
        allocated_at: None,
    })
}

/// Remembers `now` in `cell`.
fn record(cell: &mut Cell, now: &Past, write: bool) {
    if write {
        cell.write = Some(now.clone());
        cell.reads.clear();
        cell.freed = None;
    } else if let Some(read) = cell.reads.iter_mut().find(|r| r.actor() == now.actor()) {
        *read = now.clone();
    } else {
        cell.reads.push(now.clone());
    }
}
