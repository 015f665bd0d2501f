//! Ranges: named parts of a program, as NVTX's push and pop or
//! `torch.profiler.record_function` mark them.
//!
//! [`Device::range`] opens a range and returns a guard that closes it. A
//! range is a span of the CPU's time (from the open to the close, on the
//! device's CPU clock) and of the trace (the calls made while it was open:
//! `first_seq..end_seq`); its GPU side is where the work of those calls ran
//! ([`Trace::range_gpu_span`]), as Nsight Systems projects an NVTX range
//! onto the GPU rows. Ranges nest: one opened inside another has a larger
//! [`Range::depth`], and ends no later than its parent.
//!
//! The trace carries the ranges ([`Trace::ranges`]); the SVG timeline draws
//! them in lanes above the CPU's, and the Chrome trace puts each range on
//! the CPU's track around the calls made in it, and on each stream's track
//! around the work those calls queued there.
//!
//! A range costs the CPU one read of its clock at each end and no call into
//! the driver, so it adds no entry to the trace. A trace keeps its first
//! 65,536 ranges, nested at most 64 deep, with names of at most 256 bytes
//! (a longer name is cut). Learner code in another
//! process ([`crate::remote`]) opens ranges on the judge's device like any
//! other call.

use crate::device::Device;
use crate::error::Result;
use crate::remote::What;
use crate::trace::{CallSite, GpuSpan, StreamId, Trace, TraceEntry};
use serde::{Deserialize, Serialize};

/// The most ranges one trace keeps; those opened past it are not recorded.
pub(crate) const MAX_RANGES: usize = 65_536;
/// The deepest nesting kept: a range opened inside this many open ranges is
/// not recorded (nor are the ranges opened inside it).
pub(crate) const MAX_DEPTH: u32 = 64;
/// The longest name kept, in bytes; a longer one is cut at a character
/// boundary.
pub(crate) const MAX_NAME: usize = 256;

/// A named part of a program: when the CPU was in it, and which calls it made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Range {
    /// The name it was opened with (`"attention"`).
    pub name: String,
    /// How many ranges were open around it: 0 for an outermost range.
    pub depth: u32,
    /// Where it was opened.
    pub site: CallSite,
    /// CPU clock when it was opened (ns since the device opened).
    pub cpu_start_ns: u64,
    /// CPU clock when it was closed.
    pub cpu_end_ns: u64,
    /// The `seq` of the first call made inside it.
    pub first_seq: u64,
    /// One past the `seq` of the last call made inside it (`first_seq` when
    /// it made none).
    pub end_seq: u64,
}

impl Range {
    /// CPU time from its open to its close.
    pub fn cpu_ns(&self) -> u64 {
        self.cpu_end_ns.saturating_sub(self.cpu_start_ns)
    }

    /// Whether the call `seq` was made inside it.
    pub fn contains(&self, seq: u64) -> bool {
        (self.first_seq..self.end_seq).contains(&seq)
    }

    /// Whether `other` is nested inside it (opened and closed within it).
    pub fn encloses(&self, other: &Range) -> bool {
        other.depth > self.depth
            && self.cpu_start_ns <= other.cpu_start_ns
            && other.cpu_end_ns <= self.cpu_end_ns
            && self.first_seq <= other.first_seq
            && other.end_seq <= self.end_seq
    }
}

impl Trace {
    /// The calls made inside `range`.
    pub fn range_entries(&self, range: &Range) -> &[TraceEntry] {
        let from = self.entries.partition_point(|e| e.seq < range.first_seq);
        let to = self.entries.partition_point(|e| e.seq < range.end_seq);
        &self.entries[from..to.max(from)]
    }

    /// Where the GPU ran the work queued inside `range`, on `stream` or, with
    /// `None`, on any stream: from the earliest start to the latest end, gaps
    /// and other work included (as Nsight Systems projects a range onto a
    /// stream's row). `None` when that work has no known GPU span.
    pub fn range_gpu_span(&self, range: &Range, stream: Option<StreamId>) -> Option<GpuSpan> {
        let on = |e: &&TraceEntry| stream.is_none() || e.stream == stream;
        let spans = self.range_entries(range).iter().filter(on);
        spans.filter_map(|e| e.gpu).reduce(|a, b| GpuSpan {
            start_ns: a.start_ns.min(b.start_ns),
            end_ns: a.end_ns.max(b.end_ns),
        })
    }
}

/// The ranges of one device: every one opened so far, in the order they
/// were opened, and the stack of those still open.
#[derive(Debug, Default)]
pub(crate) struct Ranges {
    all: Vec<Range>,
    /// Indices into `all` of the open ranges, outermost first; `None` for a
    /// range that was not kept (past [`MAX_RANGES`] or [`MAX_DEPTH`]).
    open: Vec<Option<usize>>,
}

impl Ranges {
    /// Opens a range at `now_ns`, before the call `seq`; returns its place
    /// on the stack.
    pub(crate) fn push(&mut self, name: &str, site: CallSite, now_ns: u64, seq: u64) -> usize {
        let depth = u32::try_from(self.open.len()).unwrap_or(u32::MAX);
        let kept = self.all.len() < MAX_RANGES
            && depth < MAX_DEPTH
            && self.open.last().is_none_or(Option::is_some);
        let index = kept.then(|| {
            self.all.push(Range {
                name: cut(name).to_owned(),
                depth,
                site,
                cpu_start_ns: now_ns,
                cpu_end_ns: now_ns,
                first_seq: seq,
                end_seq: seq,
            });
            self.all.len() - 1
        });
        self.open.push(index);
        self.open.len() - 1
    }

    /// Closes the range at stack place `place` at `now_ns`, after the calls
    /// before `seq`, and every range opened inside it that is still open (a
    /// guard kept past its parent's).
    pub(crate) fn pop(&mut self, place: usize, now_ns: u64, seq: u64) {
        if place >= self.open.len() {
            return;
        }
        for index in self.open.drain(place..).flatten() {
            let range = &mut self.all[index];
            range.cpu_end_ns = now_ns;
            range.end_seq = seq;
        }
    }

    /// The ranges for a trace read at `now_ns` with `seq` calls: those still
    /// open end there.
    pub(crate) fn snapshot(&self, now_ns: u64, seq: u64) -> Vec<Range> {
        let mut all = self.all.clone();
        for &index in self.open.iter().flatten() {
            all[index].cpu_end_ns = now_ns;
            all[index].end_seq = seq;
        }
        all
    }

    /// Forgets the closed ranges (the trace is cleared and `seq` starts
    /// again at 0); the open ones now start at call 0.
    pub(crate) fn clear(&mut self) {
        let open: Vec<Range> = self
            .open
            .iter()
            .flatten()
            .map(|&i| self.all[i].clone())
            .collect();
        self.all = open;
        let kept = self.open.iter_mut().filter(|p| p.is_some());
        for (next, place) in kept.enumerate() {
            *place = Some(next);
        }
        for range in &mut self.all {
            range.first_seq = 0;
            range.end_seq = 0;
        }
    }
}

/// `name` cut to at most [`MAX_NAME`] bytes, at a character boundary.
fn cut(name: &str) -> &str {
    if name.len() <= MAX_NAME {
        return name;
    }
    let end = (0..=MAX_NAME)
        .rev()
        .find(|&i| name.is_char_boundary(i))
        .unwrap_or(0);
    &name[..end]
}

/// An open range: closing it is dropping it.
#[must_use = "a range closes when its guard is dropped: keep it in a variable (`let _attention = device.range(\"attention\");`)"]
#[derive(Debug)]
pub struct RangeGuard<'d> {
    device: &'d Device,
    place: usize,
}

impl Drop for RangeGuard<'_> {
    fn drop(&mut self) {
        self.device.close_range(self.place);
    }
}

impl Device {
    /// Opens a range named `name` (NVTX's `nvtxRangePushA`,
    /// `torch.profiler.record_function`): it closes when the guard is
    /// dropped, and every range opened inside it meanwhile nests in it.
    ///
    /// ```
    /// # fn main() -> gpu::Result<()> {
    /// let device = gpu::Device::open(gpu::Backend::Virtual)?;
    /// let stream = device.new_stream()?;
    /// {
    ///     let _step = device.range("step");
    ///     stream.spin(std::time::Duration::from_micros(20))?;
    /// }
    /// let trace = device.trace();
    /// assert_eq!(trace.ranges[0].name, "step");
    /// assert_eq!(trace.range_entries(&trace.ranges[0]).len(), 1);
    /// # Ok(())
    /// # }
    /// ```
    #[track_caller]
    pub fn range(&self, name: &str) -> RangeGuard<'_> {
        RangeGuard {
            device: self,
            place: self.open_range(CallSite::caller(), name),
        }
    }

    /// Opens a range; its place on the device's stack of open ranges.
    pub(crate) fn open_range(&self, site: CallSite, name: &str) -> usize {
        if let Some(remote) = self.proxy() {
            let what = What::OpenRange {
                name: cut(name).to_owned(),
            };
            // A lost link: the guard's close finds no such place.
            let place: Result<u64> = remote.call(site, what);
            return place.map_or(usize::MAX, |p| usize::try_from(p).unwrap_or(usize::MAX));
        }
        let mut core = self.core();
        let (now, seq) = (core.exec.now_ns(), core.trace_len());
        core.ranges.push(name, site, now, seq)
    }

    /// Closes the range at stack place `place` and those opened inside it.
    pub(crate) fn close_range(&self, place: usize) {
        if let Some(remote) = self.proxy() {
            let what = What::CloseRange {
                place: place as u64,
            };
            remote.forget(CallSite::internal("range"), what);
            return;
        }
        if let Some(mut core) = self.try_core() {
            let (now, seq) = (core.exec.now_ns(), core.trace_len());
            core.ranges.pop(place, now, seq);
        }
    }
}

#[cfg(test)]
mod tests;
