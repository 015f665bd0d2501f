//! Streams: FIFO queues of GPU work.
//!
//! Work queued on one stream runs in order; nothing orders two streams
//! unless an event does ([`Stream::wait_event`]). Every call here returns as
//! soon as the work is queued, except the ones documented as blocking.

mod copy;
mod launch;

use crate::core::{AllocKind, NodeAccess, Op, Race};
use crate::device::Device;
use crate::elem::{Elem, View};
use crate::error::{GpuError, Result};
use crate::event::Event;
use crate::exec::Span;
use crate::graph::Graph;
use crate::memory::DeviceBuffer;
use crate::race::Range;
use crate::remote::What;
use crate::trace::{BlockReason, CallSite, OpKind, StreamId};

/// A stream of one device. Cheap to clone.
#[derive(Clone)]
pub struct Stream {
    device: Device,
    id: StreamId,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Stream({})", self.id)
    }
}

impl Stream {
    pub(crate) fn new(device: Device, id: StreamId) -> Self {
        Self { device, id }
    }

    /// The stream's id (as traces and race reports show it).
    pub fn id(&self) -> StreamId {
        self.id
    }

    /// The device the stream belongs to.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// `len` zeroed elements from the stream-ordered pool: allocated now,
    /// zeroed in stream order, freed on this stream when dropped.
    #[track_caller]
    pub fn alloc_zeros<T: Elem>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let site = CallSite::caller();
        let bytes = crate::elem::byte_len::<T>(len, "alloc_zeros", site)?;
        if let Some(remote) = self.device.proxy() {
            let what = What::AllocZeros {
                stream: self.id,
                elem: T::KIND,
                len,
            };
            let addr = remote.call(site, what)?;
            return Ok(DeviceBuffer::new(
                self.device.clone(),
                View::new(addr, len),
                self.id,
                site,
            ));
        }
        let mut core = self.device.core();
        let op = Op::new(OpKind::Alloc, "cuMemAllocAsync", site)
            .on(self.id)
            .bytes(bytes as u64);
        let stream = self.id;
        let capacity = core.info.total_memory;
        let addr = core
            .call(&op, |exec| exec.malloc_async(stream, bytes))
            .map_err(|e| e.in_allocation("alloc_zeros", bytes as u64, capacity, site))?;
        core.allocations.add(addr, bytes as u64, AllocKind::Buffer);
        let range = Range {
            addr,
            bytes: bytes as u64,
            write: true,
        };
        let zero = Op::new(OpKind::Memset, "memset 0", site)
            .on(self.id)
            .bytes(bytes as u64)
            .race(Race::Access(NodeAccess::new(
                [range],
                "the zeroing of a new buffer",
            )));
        core.run(&zero, |exec| {
            Ok(((), exec.memset_zero(stream, addr, bytes)?))
        })?;
        drop(core);
        Ok(DeviceBuffer::new(
            self.device.clone(),
            View::new(addr, len),
            stream,
            site,
        ))
    }

    /// Blocks the CPU until all work queued on this stream has finished.
    #[track_caller]
    pub fn synchronize(&self) -> Result<()> {
        let site = CallSite::caller();
        if let Some(remote) = self.device.proxy() {
            return remote.call(site, What::StreamSynchronize { stream: self.id });
        }
        let mut core = self.device.core();
        let op = Op::new(OpKind::StreamSynchronize, "stream synchronize", site)
            .on(self.id)
            .blocking(BlockReason::StreamSynchronize)
            .race(Race::StreamDone);
        let stream = self.id;
        core.call(&op, |exec| exec.sync_stream(stream))
    }

    /// Whether all work queued on this stream has finished. Never blocks, but
    /// may not be called while a graph is being captured.
    #[track_caller]
    pub fn query(&self) -> Result<bool> {
        let site = CallSite::caller();
        if let Some(remote) = self.device.proxy() {
            return remote.call(site, What::StreamQuery { stream: self.id });
        }
        let mut core = self.device.core();
        let op = Op::new(OpKind::StreamQuery, "stream query", site)
            .on(self.id)
            .race(Race::StreamDone);
        let stream = self.id;
        core.query(&op, |exec| exec.query_stream(stream))
    }

    /// Records `event` here: it completes when the work queued so far has.
    #[track_caller]
    pub fn record(&self, event: &Event) -> Result<()> {
        event.record(self)
    }

    /// A new event, recorded here.
    #[track_caller]
    pub fn record_event(&self) -> Result<Event> {
        let event = self.device.new_event()?;
        event.record(self)?;
        Ok(event)
    }

    /// Makes work queued here after this call wait until `event` completes.
    /// The GPU waits, the CPU does not. An event never recorded is already complete.
    #[track_caller]
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        let site = CallSite::caller();
        self.same_device(event.device(), "wait_event", site)?;
        if let Some(remote) = self.device.proxy() {
            let (stream, event) = (self.id, event.id());
            return remote.call(site, What::WaitEvent { stream, event });
        }
        let mut core = self.device.core();
        let (stream, id) = (self.id, event.id());
        let op = Op::new(OpKind::StreamWaitEvent, "wait event", site)
            .on(stream)
            .race(Race::Wait(id));
        core.call(&op, |exec| exec.wait_event(stream, id))
    }

    /// Begins capturing this stream's work into a graph: until
    /// [`Stream::end_capture`], work queued here is recorded, not run.
    /// Nothing may block the CPU meanwhile.
    ///
    /// Another stream that waits for an event recorded here during the
    /// capture joins it (a fork): its work becomes a branch of the same
    /// graph, which replays beside this stream's. Every stream that joined
    /// must be joined back (this stream waits for an event recorded there
    /// after its last work) before `end_capture`, or it fails with
    /// [`GpuError::CaptureUnjoined`]. A stream of the capture may wait only
    /// for events recorded inside it.
    #[track_caller]
    pub fn begin_capture(&self) -> Result<()> {
        let site = CallSite::caller();
        if let Some(remote) = self.device.proxy() {
            return remote.call(site, What::BeginCapture { stream: self.id });
        }
        let op = Op::new(OpKind::BeginCapture, "begin capture", site).on(self.id);
        self.device.core().begin_capture(&op)
    }

    /// Ends the capture and instantiates the graph. An error if an illegal
    /// call invalidated the capture; the error names that call.
    #[track_caller]
    pub fn end_capture(&self) -> Result<Graph> {
        let site = CallSite::caller();
        if let Some(remote) = self.device.proxy() {
            let (graph, nodes) = remote.call(site, What::EndCapture { stream: self.id })?;
            return Ok(Graph::new(self.clone(), graph, nodes, Vec::new()));
        }
        let mut core = self.device.core();
        let op = Op::new(OpKind::EndCapture, "end capture", site).on(self.id);
        let (graph, accesses) = core.end_capture(&op)?;
        let nodes = core.exec.graph_nodes(graph);
        drop(core);
        Ok(Graph::new(self.clone(), graph, nodes, accesses))
    }

    /// Whether this stream is capturing a graph now: it began the capture,
    /// or joined one by waiting for an event recorded inside it.
    #[track_caller]
    pub fn is_capturing(&self) -> bool {
        if let Some(remote) = self.device.proxy() {
            let what = What::IsCapturing { stream: self.id };
            return remote.call(CallSite::caller(), what).unwrap_or(false);
        }
        self.device.core().in_capture(self.id)
    }

    fn same_device(&self, other: &Device, op: &'static str, site: CallSite) -> Result<()> {
        if self.device.same(other) {
            Ok(())
        } else {
            Err(GpuError::ForeignHandle { op, site })
        }
    }

    /// Queues one GPU operation through the choke point, which checks its
    /// views and feeds its race effects to the race checker.
    #[inline]
    fn enqueue(
        &self,
        op: &Op,
        work: impl FnOnce(&mut dyn crate::exec::Exec) -> Result<Span>,
    ) -> Result<()> {
        self.device.core().run(op, |exec| Ok(((), work(exec)?)))
    }
}
