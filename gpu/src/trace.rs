//! The trace: one entry per call into the crate.
//!
//! Every public call that touches the device appends a [`TraceEntry`]: what
//! it was, on which stream, how many bytes, the caller's file and line (from
//! `#[track_caller]`), when the CPU entered and left it, whether the call can
//! make the CPU wait for the GPU (and why), and when the GPU ran the work
//! (exact on the virtual GPU; from events on the CUDA backend when GPU timing
//! is on). The trace also holds the ranges the program marked
//! ([`crate::Device::range`]). A [`Trace`] exports as Chrome Trace Event JSON
//! (Perfetto opens it) and as an SVG timeline.

mod chrome;
mod svg;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::panic::Location;

pub use svg::SvgOptions;

/// Where in the caller's source a call was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct CallSite {
    /// Source file, as the compiler names it.
    pub file: &'static str,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub column: u32,
}

thread_local! {
    /// The site every call takes while the judge makes a call of learner
    /// code on its behalf ([`with_site`]).
    static SITE: std::cell::Cell<Option<CallSite>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with every call's site `site`: the judge's side of a call that
/// learner code made in its own process ([`crate::remote`]), so that the
/// trace and the race reports name the learner's line, not the judge's.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn with_site<R>(site: CallSite, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<CallSite>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SITE.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SITE.with(|s| s.replace(Some(site))));
    f()
}

impl CallSite {
    /// The location of the caller of the `#[track_caller]` function that
    /// calls this (or, while the judge makes a call for learner code in
    /// another process, that code's site).
    #[track_caller]
    #[inline]
    pub fn caller() -> Self {
        match SITE.with(std::cell::Cell::get) {
            Some(site) => site,
            None => Self::from(Location::caller()),
        }
    }

    /// A site for work the crate does on its own (drops, setup).
    pub const fn internal(what: &'static str) -> Self {
        Self {
            file: what,
            line: 0,
            column: 0,
        }
    }
}

impl<'de> Deserialize<'de> for CallSite {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Owned {
            file: String,
            line: u32,
            column: u32,
        }
        let owned = Owned::deserialize(d)?;
        Ok(Self {
            file: intern(owned.file),
            line: owned.line,
            column: owned.column,
        })
    }
}

/// A `&'static str` for a name read back (a file name, an operation),
/// leaking each distinct name once. Names come from other processes, a
/// learner's among them, so the table is bounded: past [`INTERNED`]
/// distinct names, or for a name longer than [`NAME_LIMIT`] bytes, the
/// name reads as `<a name the judge did not keep>`. A name is kept as
/// plain text: without control characters or the characters that reorder
/// text (a right-to-left override in a file name would make a report's
/// line read otherwise than it is).
pub(crate) fn intern(name: String) -> &'static str {
    use std::collections::BTreeSet;
    use std::sync::Mutex;
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let shown = |c: &char| {
        !c.is_control()
            && !matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    };
    let name = if name.chars().all(|c| shown(&c)) {
        name
    } else {
        name.chars().filter(shown).collect()
    };
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = names.get(name.as_str()) {
        return known;
    }
    if names.len() >= INTERNED || name.len() > NAME_LIMIT {
        return "<a name the judge did not keep>";
    }
    let leaked: &'static str = Box::leak(name.into_boxed_str());
    names.insert(leaked);
    leaked
}

/// The most distinct names [`intern`] keeps.
const INTERNED: usize = 4096;
/// The longest name [`intern`] keeps, in bytes.
const NAME_LIMIT: usize = 4096;

impl From<&'static Location<'static>> for CallSite {
    fn from(loc: &'static Location<'static>) -> Self {
        Self {
            file: loc.file(),
            line: loc.line(),
            column: loc.column(),
        }
    }
}

impl fmt::Display for CallSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "<{}>", self.file)
        } else {
            write!(f, "{}:{}:{}", self.file, self.line, self.column)
        }
    }
}

/// Identifies a stream of one device. Stream 0 is never used: ids start at 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct StreamId(pub u32);

impl fmt::Display for StreamId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// What kind of call a trace entry records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpKind {
    /// A stream was created.
    CreateStream,
    /// An event was created.
    CreateEvent,
    /// A kernel launch.
    Launch,
    /// A copy from host to device.
    CopyHostToDevice,
    /// A copy from device to host.
    CopyDeviceToHost,
    /// A copy from device to device.
    CopyDeviceToDevice,
    /// A memset (the zeroing of a new buffer).
    Memset,
    /// A stream-ordered allocation (`cuMemAllocAsync`).
    Alloc,
    /// A stream-ordered free (`cuMemFreeAsync`).
    Free,
    /// A raw segment allocation (`cuMemAlloc`).
    AllocSegment,
    /// A raw segment free (`cuMemFree`).
    FreeSegment,
    /// A pinned host allocation (`cuMemHostAlloc`).
    AllocPinned,
    /// A pinned host free (`cuMemFreeHost`).
    FreePinned,
    /// The CPU read pinned host memory.
    HostRead,
    /// The CPU wrote pinned host memory.
    HostWrite,
    /// An event was recorded on a stream.
    EventRecord,
    /// A stream was made to wait for an event (GPU side; the CPU goes on).
    StreamWaitEvent,
    /// The CPU waited for an event.
    EventSynchronize,
    /// The CPU asked whether an event has completed.
    EventQuery,
    /// The CPU asked for the time between two events.
    EventElapsed,
    /// The CPU waited for a stream.
    StreamSynchronize,
    /// The CPU asked whether a stream is idle.
    StreamQuery,
    /// The CPU waited for the whole device.
    DeviceSynchronize,
    /// Graph capture began on a stream.
    BeginCapture,
    /// Graph capture ended and the graph was instantiated.
    EndCapture,
    /// A captured graph was launched.
    GraphLaunch,
    /// Simulated CPU-side work (`host_work`).
    HostWork,
}

/// Why a call can make the CPU wait for the GPU.
///
/// A call carries a reason when it *can* block, whether or not it had to
/// wait this time: that is what sync debug mode and the judge flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum BlockReason {
    /// `Stream::synchronize` waits for all work queued on the stream.
    StreamSynchronize,
    /// `Event::synchronize` waits for the work before the event.
    EventSynchronize,
    /// `Device::synchronize` waits for every stream.
    DeviceSynchronize,
    /// `Event::elapsed_ms` waits for both events.
    ElapsedTime,
    /// A copy into pageable host memory returns only when the data is there.
    PageableDeviceToHost,
    /// A copy from pageable host memory returns once the driver has staged it,
    /// which for large copies means waiting for the stream.
    PageableHostToDevice,
    /// `cuMemFree` waits for all work on the device.
    SegmentFree,
    /// `cuMemFreeHost` waits for all work on the device.
    PinnedFree,
}

impl BlockReason {
    /// One sentence on what the CPU waits for.
    pub fn explain(self) -> &'static str {
        match self {
            Self::StreamSynchronize => {
                "the CPU waits until every operation queued on the stream has finished"
            }
            Self::EventSynchronize => {
                "the CPU waits until the work recorded before the event has finished"
            }
            Self::DeviceSynchronize => "the CPU waits until every stream of the device is idle",
            Self::ElapsedTime => {
                "reading the time between two events waits for both events to complete"
            }
            Self::PageableDeviceToHost => {
                "a copy into pageable host memory returns only after the stream reaches it and the data has arrived"
            }
            Self::PageableHostToDevice => {
                "a copy from pageable host memory must be staged by the driver; a large one waits for the stream"
            }
            Self::SegmentFree => {
                "cuMemFree waits for all work on the device before releasing the memory"
            }
            Self::PinnedFree => {
                "cuMemFreeHost waits for all work on the device before releasing the memory"
            }
        }
    }
}

impl fmt::Display for BlockReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.explain())
    }
}

/// When the GPU ran an operation, in nanoseconds on the trace's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuSpan {
    /// Start.
    pub start_ns: u64,
    /// End.
    pub end_ns: u64,
}

/// One call into the crate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceEntry {
    /// Position in the trace, from 0.
    pub seq: u64,
    /// What kind of call.
    pub op: OpKind,
    /// A short label: the kernel's name, the copy's direction and memory kind.
    pub name: String,
    /// The stream the call targets, if any.
    pub stream: Option<StreamId>,
    /// Bytes moved or allocated, if any.
    pub bytes: u64,
    /// The caller's location.
    pub site: CallSite,
    /// CPU clock when the call was entered (ns since the device opened).
    pub cpu_start_ns: u64,
    /// CPU clock when the call returned.
    pub cpu_end_ns: u64,
    /// Why this call can block the CPU, if it can.
    pub blocking: Option<BlockReason>,
    /// When the GPU ran it, where known.
    pub gpu: Option<GpuSpan>,
    /// True when the call was recorded into a graph instead of running.
    pub captured: bool,
}

impl TraceEntry {
    /// CPU time spent inside the call.
    pub fn cpu_ns(&self) -> u64 {
        self.cpu_end_ns.saturating_sub(self.cpu_start_ns)
    }
}

/// Which backend produced a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BackendKind {
    /// A real GPU through the CUDA driver.
    Cuda,
    /// The deterministic virtual GPU.
    Virtual,
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Cuda => "cuda",
            Self::Virtual => "virtual",
        })
    }
}

/// A copy of a device's trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    /// The backend that produced it.
    pub backend: BackendKind,
    /// The device's name.
    pub device: String,
    /// Every stream the device had, in creation order.
    pub streams: Vec<StreamId>,
    /// The entries, in call order.
    pub entries: Vec<TraceEntry>,
    /// The ranges ([`crate::Device::range`]), in the order they were opened
    /// (so a range comes before those nested in it).
    #[serde(default)]
    pub ranges: Vec<crate::Range>,
}

impl Trace {
    /// The entries that can block the CPU.
    pub fn blocking(&self) -> impl Iterator<Item = &TraceEntry> {
        self.entries.iter().filter(|e| e.blocking.is_some())
    }

    /// The entries from `seq` on (to look at one phase of a program).
    pub fn since(&self, seq: u64) -> &[TraceEntry] {
        let first = self.entries.partition_point(|e| e.seq < seq);
        &self.entries[first..]
    }

    /// Chrome Trace Event JSON: open it in Perfetto or `chrome://tracing`.
    pub fn to_chrome_json(&self) -> String {
        chrome::render(self)
    }

    /// An SVG timeline: one lane for the CPU, one per stream; blocked CPU time
    /// is hatched in red.
    pub fn to_svg(&self, options: &SvgOptions) -> String {
        svg::render(self, options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_read_back_is_kept_as_plain_text() {
        let site: CallSite =
            serde_json::from_str(r#"{"file":"src/\u202elib.rs\u0007","line":3,"column":1}"#)
                .unwrap();
        assert_eq!(site.file, "src/lib.rs");
        assert_eq!(intern("src/lib.rs".into()), "src/lib.rs");
    }
}
