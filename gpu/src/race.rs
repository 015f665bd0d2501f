//! The race checker, in the spirit of PyTorch's CUDA sanitizer (CSAN).
//!
//! Each actor (the CPU and every stream) has a vector clock. An operation
//! queued on a stream ticks that stream's clock and inherits the CPU's (work
//! cannot start before it was queued). Recording an event snapshots the
//! stream's clock; waiting on it joins the snapshot into the waiting stream;
//! synchronizing joins a stream's or event's clock into the CPU's.
//!
//! Shadow memory remembers, for each byte range, the last write and the last
//! read of each actor since then. An access that is not ordered after an
//! earlier conflicting access (a write against anything, a read against a
//! write) by another actor is a race, reported with both call sites. A free
//! is checked like a write of the memory: another actor's use that the free
//! is not ordered after is a reuse hazard, reported at the free even when
//! nothing reuses the memory in the run (PyTorch's CSAN drops a block's
//! history at its free, and misses it). Freed memory keeps its history, so
//! memory handed out again while another stream may still use it is
//! reported as a reuse too, with the site of the free.
//!
//! The reports and their words are in `report`, the shadow memory in
//! `shadow`, the tests in `tests`.

mod report;
mod shadow;

pub use report::{AccessRecord, RaceKind, RaceReport};

use crate::exec::EventId;
use crate::label::Label;
use crate::trace::{CallSite, StreamId};
use serde::{Deserialize, Serialize};
use shadow::{Origin, Shadow};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Who made an access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Actor {
    /// The CPU, reading or writing pinned host memory.
    Cpu,
    /// Work queued on a stream.
    Stream(StreamId),
}

impl Actor {
    fn index(self) -> usize {
        match self {
            Self::Cpu => 0,
            Self::Stream(s) => s.0 as usize,
        }
    }
}

impl fmt::Display for Actor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Cpu => f.write_str("the CPU"),
            Self::Stream(s) => write!(f, "stream {s}"),
        }
    }
}

/// A vector clock: entry `i` is the latest operation of actor `i` known to have happened before.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Clock(Vec<u64>);

impl Clock {
    fn get(&self, i: usize) -> u64 {
        self.0.get(i).copied().unwrap_or(0)
    }

    fn tick(&mut self, i: usize) -> u64 {
        if self.0.len() <= i {
            self.0.resize(i + 1, 0);
        }
        self.0[i] += 1;
        self.0[i]
    }

    fn join(&mut self, other: &Clock) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (mine, theirs) in self.0.iter_mut().zip(&other.0) {
            *mine = (*mine).max(*theirs);
        }
    }
}

/// An access about to be checked: a byte range and its direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Range {
    pub(crate) addr: u64,
    pub(crate) bytes: u64,
    pub(crate) write: bool,
}

/// The byte ranges one operation touches, kept inline: a kernel touches at
/// most four buffers, a copy two, and a group of a graph's merged accesses
/// ranges of one node, so no operation allocates for them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Ranges {
    len: u8,
    items: [Range; Ranges::MAX],
}

impl Ranges {
    /// The most ranges one operation touches.
    pub(crate) const MAX: usize = 4;

    /// Adds `range`.
    ///
    /// # Panics
    /// When [`Ranges::MAX`] ranges are there already (a bug in the crate:
    /// no operation touches more).
    pub(crate) fn push(&mut self, range: Range) {
        let slot = self
            .items
            .get_mut(usize::from(self.len))
            .expect("an operation touches at most `Ranges::MAX` ranges");
        *slot = range;
        self.len += 1;
    }

    /// Whether any range has bytes in it.
    #[inline]
    pub(crate) fn any_bytes(&self) -> bool {
        self.iter().any(|r| r.bytes > 0)
    }
}

impl std::ops::Deref for Ranges {
    type Target = [Range];

    fn deref(&self) -> &[Range] {
        &self.items[..usize::from(self.len)]
    }
}

impl std::ops::DerefMut for Ranges {
    fn deref_mut(&mut self) -> &mut [Range] {
        &mut self.items[..usize::from(self.len)]
    }
}

impl FromIterator<Range> for Ranges {
    fn from_iter<I: IntoIterator<Item = Range>>(ranges: I) -> Self {
        let mut all = Self::default();
        ranges.into_iter().for_each(|r| all.push(r));
        all
    }
}

impl<const N: usize> From<[Range; N]> for Ranges {
    /// `ranges`, copied in at once (more than [`Ranges::MAX`] does not compile).
    fn from(ranges: [Range; N]) -> Self {
        const {
            assert!(
                N <= Ranges::MAX,
                "an operation touches at most `Ranges::MAX` ranges"
            )
        };
        let mut all = Self::default();
        all.items[..N].copy_from_slice(&ranges);
        all.len = N as u8;
        all
    }
}

/// The checker's state for one device.
#[derive(Default)]
pub(crate) struct RaceChecker {
    cpu: Clock,
    streams: BTreeMap<StreamId, Clock>,
    events: BTreeMap<EventId, Clock>,
    shadow: Shadow,
    found: Found,
}

/// Address space of pinned host memory in the shadow (device addresses are far below).
pub(crate) const HOST_BASE: u64 = 1 << 63;

impl RaceChecker {
    /// Work queued on `stream`: checks and records its accesses.
    pub(crate) fn on_stream_op(
        &mut self,
        stream: StreamId,
        ranges: &[Range],
        what: impl Into<Label>,
        site: CallSite,
    ) {
        let clock = self.streams.entry(stream).or_default();
        clock.join(&self.cpu);
        let actor = Actor::Stream(stream);
        let epoch = clock.tick(actor.index());
        if ranges.iter().any(|r| r.bytes > 0) {
            let origin = Origin {
                actor,
                what: what.into(),
                site,
            };
            self.found
                .access(&mut self.shadow, epoch, clock, ranges, &origin);
        }
    }

    /// The CPU touches pinned memory: checks and records the access.
    pub(crate) fn on_cpu_access(
        &mut self,
        ranges: &[Range],
        what: impl Into<Label>,
        site: CallSite,
    ) {
        let epoch = self.cpu.tick(Actor::Cpu.index());
        let origin = Origin {
            actor: Actor::Cpu,
            what: what.into(),
            site,
        };
        self.found
            .access(&mut self.shadow, epoch, &self.cpu, ranges, &origin);
    }

    /// Memory freed (in stream order, or after waiting): reports each
    /// earlier use of it by another actor that the free is not ordered
    /// after (a reuse hazard, [`RaceKind::UnorderedFree`]), and keeps its
    /// history for the reuse checks.
    ///
    /// `freer` is the stream the free is queued on, or `None` for a free that
    /// waited for the device (`cuMemFree`): what it knew orders the memory's
    /// earlier uses before any reuse. `allocated_at` is where the memory was
    /// allocated, for the report.
    pub(crate) fn on_free(
        &mut self,
        freer: Option<StreamId>,
        (addr, bytes): (u64, u64),
        site: CallSite,
        allocated_at: Option<CallSite>,
    ) {
        let (actor, clock) = match freer {
            Some(stream) => {
                let clock = self.streams.entry(stream).or_default();
                clock.join(&self.cpu);
                (Actor::Stream(stream), clock.clone())
            }
            None => (Actor::Cpu, self.cpu.clone()),
        };
        let ordered = |prev: Actor, epoch: u64| prev == actor || clock.get(prev.index()) >= epoch;
        let free = AccessRecord {
            actor,
            write: true,
            what: "its free".into(),
            site,
        };
        for (start, end, previous) in self.shadow.unordered_uses(addr, bytes, ordered) {
            let report = RaceReport {
                kind: RaceKind::UnorderedFree,
                addr: start,
                bytes: end - start,
                host: start >= HOST_BASE,
                current: free.clone(),
                previous,
                freed_at: Some(site),
                freed_by: Some(actor),
                allocated_at,
            };
            self.found.keep(report);
        }
        self.shadow.mark_freed((addr, bytes), site, actor, clock);
    }

    /// `event` recorded on `stream`.
    pub(crate) fn on_record(&mut self, event: EventId, stream: StreamId) {
        let clock = self.streams.entry(stream).or_default();
        clock.join(&self.cpu);
        self.events.insert(event, clock.clone());
    }

    /// `stream` waits for `event` (a no-op if never recorded, as in CUDA).
    pub(crate) fn on_wait(&mut self, stream: StreamId, event: EventId) {
        let clock = self.streams.entry(stream).or_default();
        clock.join(&self.cpu);
        if let Some(recorded) = self.events.get(&event) {
            clock.join(recorded);
        }
    }

    /// The CPU knows everything queued on `stream` so far has finished.
    pub(crate) fn on_stream_done(&mut self, stream: StreamId) {
        if let Some(clock) = self.streams.get(&stream) {
            self.cpu.join(clock);
        }
    }

    /// The CPU knows the work before `event` has finished.
    pub(crate) fn on_event_done(&mut self, event: EventId) {
        if let Some(clock) = self.events.get(&event) {
            self.cpu.join(clock);
        }
    }

    /// The CPU knows the whole device is idle.
    pub(crate) fn on_device_done(&mut self) {
        for clock in self.streams.values() {
            self.cpu.join(clock);
        }
    }

    /// Every race found so far.
    pub(crate) fn reports(&self) -> &[RaceReport] {
        &self.found.reports
    }

    /// Keeps races found by another checker (a capture's own), each pair of
    /// call sites once.
    pub(crate) fn adopt(&mut self, reports: Vec<RaceReport>) {
        for report in reports {
            if self
                .found
                .reported
                .insert((report.current.site, report.previous.site))
            {
                self.found.reports.push(report);
            }
        }
    }

    /// Removes and returns the races found so far.
    pub(crate) fn take_reports(&mut self) -> Vec<RaceReport> {
        self.found.reported.clear();
        std::mem::take(&mut self.found.reports)
    }
}

/// The races found so far, each pair of call sites once.
#[derive(Default)]
struct Found {
    reports: Vec<RaceReport>,
    reported: BTreeSet<(CallSite, CallSite)>,
}

impl Found {
    /// Keeps `report` unless its pair of call sites was reported already.
    fn keep(&mut self, report: RaceReport) {
        if self
            .reported
            .insert((report.current.site, report.previous.site))
        {
            self.reports.push(report);
        }
    }

    /// Checks `ranges`, accessed by `origin` at `epoch` knowing `clock`,
    /// against `shadow`, records them there, and keeps the races found.
    fn access(
        &mut self,
        shadow: &mut Shadow,
        epoch: u64,
        clock: &Clock,
        ranges: &[Range],
        origin: &Origin,
    ) {
        let actor = origin.actor;
        for range in ranges.iter().filter(|r| r.bytes > 0) {
            let ordered = |prev: Actor, prev_epoch: u64| {
                prev == actor || clock.get(prev.index()) >= prev_epoch
            };
            for report in shadow.access(*range, epoch, origin, ordered) {
                self.keep(report);
            }
        }
    }
}

#[cfg(test)]
mod tests;
