//! A race report and its words: both accesses (who, what, where), and the
//! ordering that is missing, which event, recorded on which stream after
//! which access, the other side must wait for before its own access (or,
//! for a free, before the free), never a blanket synchronize, which in an
//! overlapping pipeline adds the very wait it avoids.

use super::Actor;
use crate::trace::CallSite;
use serde::{Deserialize, Serialize};
use std::fmt;

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
