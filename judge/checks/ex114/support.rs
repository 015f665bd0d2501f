//! What the checks share: the learner's allocator behind one object-safe
//! face ([`Alloc`]), so that a test of the suite can put a known-wrong one
//! in its place; a [`Session`] that calls it and keeps the trace of each
//! call; the streams of a script; words for sizes and trace entries.

use gpu::{Device, OpKind, RaceReport, Result as GpuResult, Stream, TraceEntry, View};
use judge_harness::{Ctx, Failure};
use std::any::Any;
use std::time::Duration;

/// The size of the scripts' blocks: 1 MiB.
pub(super) const MIB: usize = 1 << 20;
/// Floats in a 1 MiB block.
pub(super) const N: usize = MIB / 4;
/// How long a slow reader on another stream spins before it reads.
pub(super) const SLOW: Duration = Duration::from_millis(20);
/// The earlier work the owner stream is busy with, so that an event
/// recorded on it does not complete at once.
pub(super) const BUSY: Duration = Duration::from_micros(300);

/// A block, whatever allocator handed it out.
pub(super) struct Held {
    /// Its device address.
    pub(super) addr: u64,
    /// Its size in bytes.
    pub(super) bytes: usize,
    inner: Box<dyn Any>,
}

/// The exercise's API, as the checks call it.
pub(super) trait Api: Sized + 'static {
    /// The allocator's block.
    type Block: 'static;
    /// `StreamAllocator::new(owner)`.
    fn open(owner: &Stream) -> Self;
    /// `malloc(bytes)`.
    fn malloc(&mut self, bytes: usize) -> GpuResult<Self::Block>;
    /// `record_stream(&mut block, stream)`.
    fn record_stream(&mut self, block: &mut Self::Block, stream: &Stream);
    /// `free(block)`.
    fn free(&mut self, block: Self::Block) -> GpuResult<()>;
    /// `block.addr()`.
    fn addr(block: &Self::Block) -> u64;
    /// `block.bytes()`.
    fn bytes(block: &Self::Block) -> usize;
}

impl Api for stream_free_list::StreamAllocator {
    type Block = stream_free_list::Block;
    fn open(owner: &Stream) -> Self {
        Self::new(owner)
    }
    fn malloc(&mut self, bytes: usize) -> GpuResult<Self::Block> {
        Self::malloc(self, bytes)
    }
    fn record_stream(&mut self, block: &mut Self::Block, stream: &Stream) {
        Self::record_stream(self, block, stream);
    }
    fn free(&mut self, block: Self::Block) -> GpuResult<()> {
        Self::free(self, block)
    }
    fn addr(block: &Self::Block) -> u64 {
        block.addr()
    }
    fn bytes(block: &Self::Block) -> usize {
        block.bytes()
    }
}

/// An allocator of any [`Api`], its blocks [`Held`].
pub(super) trait Alloc {
    /// `malloc(bytes)`.
    fn malloc(&mut self, bytes: usize) -> GpuResult<Held>;
    /// `record_stream(&mut block, stream)`.
    fn record_stream(&mut self, block: &mut Held, stream: &Stream);
    /// `free(block)`.
    fn free(&mut self, block: Held) -> GpuResult<()>;
}

/// An [`Api`] as an [`Alloc`].
struct Wrap<A>(A);

/// The message of a block handed to another allocator than its own (a
/// script never does that).
const OWN_BLOCK: &str = "a script gives each allocator its own blocks";

impl<A: Api> Alloc for Wrap<A> {
    fn malloc(&mut self, bytes: usize) -> GpuResult<Held> {
        let block = self.0.malloc(bytes)?;
        Ok(Held {
            addr: A::addr(&block),
            bytes: A::bytes(&block),
            inner: Box::new(block),
        })
    }
    fn record_stream(&mut self, block: &mut Held, stream: &Stream) {
        let block = block.inner.downcast_mut::<A::Block>().expect(OWN_BLOCK);
        self.0.record_stream(block, stream);
    }
    fn free(&mut self, block: Held) -> GpuResult<()> {
        let block = block.inner.downcast::<A::Block>().expect(OWN_BLOCK);
        self.0.free(*block)
    }
}

/// A new allocator of `A` on `owner`, as an [`Alloc`].
pub(super) fn open<A: Api>(owner: &Stream) -> Box<dyn Alloc> {
    Box::new(Wrap(A::open(owner)))
}

/// An allocator behind [`Alloc`], owned.
type Dyn = dyn Alloc + 'static;

/// A maker of allocators.
pub(super) type Open = fn(&Stream) -> Box<dyn Alloc>;

/// The allocator the checks run: the learner's, unless a test of the suite
/// put another in its place.
fn chosen() -> Open {
    #[cfg(test)]
    if let Some(other) = super::tests::replacement() {
        return other;
    }
    open::<stream_free_list::StreamAllocator>
}

/// One call of the allocator and the trace entries it made.
pub(super) struct Call {
    /// The call, as the message names it (`` `free(a)` ``).
    pub(super) what: String,
    /// What it made the device do.
    pub(super) entries: Vec<TraceEntry>,
}

impl Call {
    /// The entries of kind `op`.
    pub(super) fn of(&self, op: OpKind) -> Vec<&TraceEntry> {
        self.entries.iter().filter(|e| e.op == op).collect()
    }
}

/// A script's device, streams and allocator, with the trace of every call
/// of the allocator.
pub(super) struct Session {
    /// The device.
    pub(super) device: Device,
    /// The owner stream.
    pub(super) owner: Stream,
    /// Other streams, `side[0]` named `side1`, and so on.
    pub(super) side: Vec<Stream>,
    alloc: Option<Box<dyn Alloc>>,
    /// Every call of the allocator, in order.
    pub(super) calls: Vec<Call>,
}

/// A sum of `N` ones read on another stream: where it lands.
pub(super) type Out = gpu::DeviceBuffer<f32>;

impl Session {
    /// A device with an owner stream and `sides` other streams, kernels
    /// warmed up, and a new allocator on the owner stream.
    pub(super) fn open(ctx: &Ctx, sides: usize) -> Result<Self, Failure> {
        let device = ctx.device()?;
        let owner = device.new_stream()?;
        let side = (0..sides)
            .map(|_| device.new_stream())
            .collect::<GpuResult<Vec<_>>>()?;
        // A real GPU may load a kernel at its first launch: not in a script.
        let warm = owner.alloc_zeros::<f32>(1)?;
        owner.fill(&warm, 1.0)?;
        owner.sum(&warm, &warm)?;
        device.synchronize()?;
        drop(warm);
        let _ = device.take_races();
        let mut session = Self {
            device,
            owner,
            side,
            alloc: None,
            calls: Vec::new(),
        };
        let owner = session.owner.clone();
        let alloc = session.window("`StreamAllocator::new(&owner)`".into(), |_| {
            chosen()(&owner)
        });
        session.alloc = Some(alloc);
        Ok(session)
    }

    /// Runs `f` with the allocator and keeps the trace of it as `what`.
    fn window<R>(&mut self, what: String, f: impl FnOnce(Option<&mut Dyn>) -> R) -> R {
        let mark = self.device.trace_mark();
        let result = f(self.alloc.as_deref_mut());
        let end = self.device.trace_mark();
        let trace = self.device.trace();
        let entries = trace
            .since(mark)
            .iter()
            .take_while(|e| e.seq < end)
            .cloned()
            .collect();
        self.calls.push(Call { what, entries });
        result
    }

    /// `name = malloc(bytes)`.
    pub(super) fn malloc(&mut self, name: &str, bytes: usize) -> Result<Held, Failure> {
        let what = format!("`{name} = malloc({})`", size(bytes));
        let block = self.window(what.clone(), |a| alloc(a).malloc(bytes));
        block.map_err(|e| Failure::new(format!("{what} to succeed"), format!("{what} failed: {e}")))
    }

    /// `record_stream(&mut name, stream)`, the stream named `stream_name`.
    pub(super) fn record_stream(&mut self, block: &mut Held, name: &str, side: usize) {
        let stream = self.stream(side);
        let what = format!("`record_stream(&mut {name}, &{})`", stream_name(side));
        self.window(what, |a| alloc(a).record_stream(block, &stream));
    }

    /// `free(name)`.
    pub(super) fn free(&mut self, block: Held, name: &str) -> Result<(), Failure> {
        let what = format!("`free({name})`");
        let freed = self.window(what.clone(), |a| alloc(a).free(block));
        freed.map_err(|e| Failure::new(format!("{what} to succeed"), format!("{what} failed: {e}")))
    }

    /// The drop of the allocator, traced as a call.
    pub(super) fn close(&mut self) {
        let alloc = self.alloc.take();
        self.window("the drop of the allocator".into(), |_| drop(alloc));
    }

    /// Stream `side`: 0 is the owner, 1 is `side[0]`, and so on.
    pub(super) fn stream(&self, side: usize) -> Stream {
        match side {
            0 => self.owner.clone(),
            i => self.side[i - 1].clone(),
        }
    }

    /// How a message names the stream `id`: `owner`, `side1`, ….
    pub(super) fn name_of(&self, id: Option<gpu::StreamId>) -> String {
        if id == Some(self.owner.id()) {
            return "the owner stream".into();
        }
        match self.side.iter().position(|s| Some(s.id()) == id) {
            Some(i) => stream_name(i + 1),
            None => id.map_or("no stream".into(), |id| format!("stream {}", id.0)),
        }
    }

    /// The last call.
    pub(super) fn last(&self) -> &Call {
        self.calls.last().expect("a session has calls")
    }

    /// The call named `what`.
    pub(super) fn call(&self, what: &str) -> &Call {
        self.calls
            .iter()
            .find(|c| c.what == what)
            .unwrap_or_else(|| panic!("the script made {what}"))
    }

    /// The block's floats.
    pub(super) fn view(&self, block: &Held) -> Result<View<f32>, Failure> {
        Ok(self
            .device
            .view::<f32>(block.addr, block.bytes.min(MIB) / 4)?)
    }

    /// The owner fills `block` with `value`.
    pub(super) fn fill(&self, block: &Held, value: f32) -> Result<(), Failure> {
        Ok(self.owner.fill(self.view(block)?, value)?)
    }

    /// Stream `side` waits for the owner's work so far, then spins for
    /// `delay` and sums `block` into a new one-float buffer.
    pub(super) fn slow_read(
        &self,
        side: usize,
        block: &Held,
        delay: Duration,
    ) -> Result<Out, Failure> {
        let stream = self.stream(side);
        let out = stream.alloc_zeros::<f32>(1)?;
        stream.wait_event(&self.owner.record_event()?)?;
        stream.sum_after(delay, self.view(block)?, &out)?;
        Ok(out)
    }

    /// What `out` holds, read on stream `side` (the judge's wait).
    pub(super) fn read(&self, side: usize, out: &Out) -> Result<f32, Failure> {
        Ok(self.stream(side).to_vec(out)?[0])
    }

    /// The races found so far, taken.
    pub(super) fn races(&self) -> Vec<RaceReport> {
        self.device.take_races()
    }
}

/// The allocator of a call: there is one between `open` and `close`.
fn alloc(a: Option<&mut Dyn>) -> &mut Dyn {
    a.expect("the allocator is open")
}

/// How a message names stream `side`.
pub(super) fn stream_name(side: usize) -> String {
    match side {
        0 => "owner".into(),
        i => format!("side{i}"),
    }
}

/// `bytes` for a person: `1 MiB`, `2 MiB`, `4096 bytes`.
pub(super) fn size(bytes: usize) -> String {
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// One trace entry for a person: what and where.
pub(super) fn describe(e: &TraceEntry) -> String {
    format!("`{}` at {}", e.name, e.site)
}

/// The races, one a line, for a failure's detail.
pub(super) fn race_lines(races: &[RaceReport]) -> String {
    // The racing accesses are the judge's own (its fills and slow readers):
    // their lines, and the race checker's advice to order them with an
    // event, point where nothing is the learner's to change.
    match races.len() {
        0 => "the race checker found no race".into(),
        n => format!(
            "the race checker found {n} race(s) on the block: the judge's write after the `malloc` that handed it out against a judge's read still running on another stream. Both accesses are the judge's and correct; what let them overlap is the block handed out too early, so the fix is in your `free` (an event on each noted stream) and `malloc` (a pending block comes back only once its events have completed)"
        ),
    }
}
