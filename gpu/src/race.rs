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
//! Each report ends with the ordering that is missing: which event, recorded
//! on which stream after which access, the other side must wait for before
//! its own access (or, for a free, before the free), never a blanket
//! synchronize, which in an overlapping pipeline adds the very wait it
//! avoids.
//!
//! About 600 lines (the shadow memory is already its own module, `shadow`,
//! and the tests are in `tests`): the vector clocks, the check of each
//! access and of each free, and the reports they make are one algorithm
//! whose parts read best together.

mod shadow;

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

/// One side of a race.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessRecord {
    /// Who accessed the memory.
    pub actor: Actor,
    /// True for a write.
    pub write: bool,
    /// What did it: "kernel `sum_f32`", "copy device to pinned", …
    pub what: String,
    /// The caller's location.
    pub site: CallSite,
}

impl fmt::Display for AccessRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = if self.write { "writes" } else { "reads" };
        write!(
            f,
            "{} {verb} it in {} at {}",
            self.actor, self.what, self.site
        )
    }
}

/// What kind of race.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RaceKind {
    /// Two accesses, at least one a write, that nothing orders.
    Unordered,
    /// Memory was freed, handed out again and used while an earlier user may
    /// still be using it.
    ReuseAfterFree,
    /// Memory was freed on one stream while another stream's use of it was
    /// not ordered before the free: the pool may hand it to the next
    /// allocation at once, whether or not this run ever does (a reuse
    /// hazard, reported at the free).
    UnorderedFree,
}

/// A race the checker found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaceReport {
    /// What kind.
    pub kind: RaceKind,
    /// First byte both accesses touch.
    pub addr: u64,
    /// Bytes both touch, in the first overlapping range found.
    pub bytes: u64,
    /// Whether `addr` is pinned host memory rather than device memory.
    pub host: bool,
    /// The access that found the race.
    pub current: AccessRecord,
    /// The earlier access it is not ordered after.
    pub previous: AccessRecord,
    /// Where the memory was freed before being handed out again.
    pub freed_at: Option<CallSite>,
    /// Who freed it (the stream the free was queued on), when it was freed.
    #[serde(default)]
    pub freed_by: Option<Actor>,
    /// Where the freed buffer was allocated, when known (a buffer freed by
    /// its drop has no call site of its own to name).
    #[serde(default)]
    pub allocated_at: Option<CallSite>,
}

impl fmt::Display for RaceReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let memory = if self.host {
            "pinned host memory"
        } else {
            "device memory"
        };
        let (first, range) = (&self.current, (self.addr, self.bytes));
        match self.kind {
            RaceKind::Unordered => writeln!(f, "data race on {memory} {}", Span(range))?,
            RaceKind::ReuseAfterFree => writeln!(
                f,
                "memory reused while still in use: {memory} {}",
                Span(range)
            )?,
            RaceKind::UnorderedFree => return self.fmt_unordered_free(f, memory),
        }
        writeln!(f, "  now:     {first}")?;
        writeln!(f, "  earlier: {}", self.previous)?;
        if let Some(freed) = self.freed_at {
            let by = self
                .freed_by
                .map(|a| format!(" on {a}"))
                .unwrap_or_default();
            writeln!(
                f,
                "  freed at {freed}{by} and handed out again before the earlier access was known to be done"
            )?;
        }
        write!(f, "  nothing orders the two: {}", self.missing_order())
    }
}

impl RaceReport {
    /// The report of a free that another stream's use was not ordered before.
    fn fmt_unordered_free(&self, f: &mut fmt::Formatter<'_>, memory: &str) -> fmt::Result {
        writeln!(
            f,
            "memory freed while another stream may still use it: {memory} {}",
            Span((self.addr, self.bytes))
        )?;
        let buffer = match self.allocated_at {
            Some(at) => format!("the buffer allocated at {at}"),
            None => "the buffer".into(),
        };
        match self.freed_at.filter(|site| site.line != 0) {
            Some(at) => writeln!(
                f,
                "  freed:   {buffer}, freed on {} at {at}",
                self.current.actor
            )?,
            None => writeln!(
                f,
                "  freed:   {buffer}, dropped: freed on {}",
                self.current.actor
            )?,
        }
        writeln!(f, "  earlier: {}", self.previous)?;
        let (freer, user) = (self.current.actor, self.previous.actor);
        let free = self.free_on(freer);
        let when = match self.freed_at.filter(|site| site.line != 0) {
            Some(_) => "the free",
            None => "the drop",
        };
        let beside = self
            .freed_at
            .filter(|site| site.line != 0)
            .or(self.allocated_at);
        write!(
            f,
            "  nothing orders that {use_} before the free: {free} is not ordered after {user}'s \
             {use_} at {line}, so the pool may hand this memory to {freer}'s next allocation at \
             once, whether or not this run reuses it. Before {when}, make {freer} wait for an \
             event recorded on {user} after that {use_} (`wait_event`): what `record_stream` \
             arranges in a caching allocator",
            use_ = noun(&self.previous),
            line = line_of(self.previous.site, beside),
        )
    }

    /// What would have ordered the two accesses: which event, recorded on
    /// which stream after which access, waited for by whom before which.
    fn missing_order(&self) -> String {
        let (now, earlier) = (&self.current, &self.previous);
        let here = |record: &AccessRecord, other: &AccessRecord| {
            format!(
                "its {} at {}",
                noun(record),
                line_of(record.site, Some(other.site))
            )
        };
        let (now_at, earlier_at) = (here(now, earlier), here(earlier, now));
        match (self.kind, earlier.actor, now.actor) {
            (RaceKind::ReuseAfterFree, user, _) => {
                let freer = self.freed_by.unwrap_or(now.actor);
                format!(
                    "{} is not ordered after {user}'s {} at {}: before the free, make {freer} wait \
                     for an event recorded on {user} after that {} (`wait_event`), or call \
                     `record_stream`",
                    self.free_on(freer),
                    noun(earlier),
                    line_of(earlier.site, self.freed_at),
                    noun(earlier),
                )
            }
            (_, Actor::Stream(stream), Actor::Cpu) if now.write && !earlier.write => format!(
                "record an event on stream {stream} after {earlier_at} and make the CPU wait for \
                 it (`Event::synchronize`) before {now_at}, or let the CPU write another buffer \
                 while that copy still reads this one"
            ),
            (_, Actor::Stream(stream), Actor::Cpu) => format!(
                "record an event on stream {stream} after {earlier_at} and make the CPU wait for \
                 it (`Event::synchronize`) before {now_at}"
            ),
            (_, Actor::Cpu, user) => format!(
                "the CPU's {} at {} must be over before {user}'s {} at {} is queued",
                noun(earlier),
                line_of(earlier.site, Some(now.site)),
                noun(now),
                line_of(now.site, Some(earlier.site)),
            ),
            (_, Actor::Stream(stream), user) => format!(
                "record an event on stream {stream} after {earlier_at} and make {user} wait for \
                 it (`wait_event`) before {now_at}"
            ),
        }
    }

    /// "the free at line N on stream S", or "the buffer's drop on stream S"
    /// for a free without a call site of its own.
    fn free_on(&self, freer: Actor) -> String {
        match self.freed_at.filter(|site| site.line != 0) {
            Some(at) => format!(
                "the free at {} on {freer}",
                line_of(at, Some(self.previous.site))
            ),
            None => format!("the buffer's drop on {freer}"),
        }
    }
}

/// `[0x…, +N bytes)`.
struct Span((u64, u64));

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (addr, bytes) = self.0;
        write!(f, "[{addr:#x}, +{bytes} bytes)")
    }
}

/// "read" or "write".
fn noun(record: &AccessRecord) -> &'static str {
    if record.write { "write" } else { "read" }
}

/// `site` as "line N" when it is in the same file as `beside` (the report
/// names both files in full above), else as `file:N`; a site inside the
/// crate (line 0) by what it was.
fn line_of(site: CallSite, beside: Option<CallSite>) -> String {
    match beside {
        _ if site.line == 0 => site.file.to_string(),
        Some(other) if other.file == site.file => format!("line {}", site.line),
        _ => format!("{}:{}", site.file, site.line),
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
