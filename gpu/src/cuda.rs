//! The CUDA backend: the [`Exec`] calls carried out by the driver, through
//! cudarc.
//!
//! A little over 400 lines: it is the one `impl Exec`, a short method per
//! call of the trait; what is longer (launches, copies, timing, the scratch,
//! handles) is already in the submodules below.
//!
//! A thin layer: each call maps to one or two driver calls. Device memory is
//! raw `CUdeviceptr`s (`u64`) with cudarc's `result::` functions, never
//! `CudaSlice`, and cudarc's event tracking is turned off as soon as the
//! context exists, so cudarc adds no wait or synchronization of its own: what
//! the GPU does is what the calls say. Nothing here makes the CPU wait unless
//! the [`Exec`] method says it blocks (the synchronizes, `elapsed_ms`, copies
//! into pageable memory, `free_segment`, `free_pinned`, `resolve`); [`open`]
//! and dropping the device wait too.
//!
//! The parts:
//! - `setup`: finding the driver ([`probe`], [`cuda_libraries`]), the context, NVRTC
//!   (and its version, [`nvrtc_version`]);
//! - `launch`: kernel arguments and geometry per [`Kernel`] variant;
//! - `copy`: copies and memsets;
//! - `pinned`: page-locked host memory behind raw pointers;
//! - `scratch`: the device memory of `sum_f32`, one slot per stream;
//! - `timing`: event pairs around operations, placed on the CPU clock;
//! - `handles`: id lookups, the timing wrapper and the drop;
//! - `raw`: the `spin` kernel launched through cudarc alone, the yardstick
//!   of [`crate::measure_launches`].
//!
//! Ids: streams are numbered from 1 in creation order; events, pinned
//! allocations and graphs from 0. Zero-byte copies and memsets, and launches
//! whose grid would be empty, are skipped: they return [`Span::None`] and
//! add no node to a graph being captured. Allocations of zero bytes allocate
//! one byte, so that each has its own address and can be freed.
//!
//! Seen on the H200 (driver 580) while a stream of this thread captures
//! (thread-local mode): querying or waiting for *any* stream or event of the
//! thread, and `cuMemAllocAsync` even on another stream, fail with
//! `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED` and invalidate the capture;
//! creating events and streams, recording events and launching on other
//! streams are fine. `cuCtxSynchronize` fails while any thread of the process
//! captures on the device. Recording and waiting on events inside a capture
//! add no node; an event recorded there cannot be queried afterwards
//! (`CUDA_ERROR_INVALID_VALUE`).

mod clock;
mod copy;
mod handles;
mod launch;
mod pinned;
mod raw;
mod scratch;
mod setup;
#[cfg(test)]
mod tests;
mod timing;

pub(crate) use raw::RawLaunches;
pub(crate) use setup::probe;
pub use setup::{CudaLibraries, CudaLibrary, cuda_libraries, nvrtc_version};

use crate::error::{GpuError, Result};
use crate::exec::{Copy, DeviceInfo, EventId, Exec, GraphId, HostId, Span};
use crate::kernels::Kernel;
use crate::trace::{GpuSpan, StreamId};
use clock::CpuClock;
use cudarc::driver::result;
use cudarc::driver::sys::{self, CUgraphInstantiate_flags, CUresult, CUstreamCaptureMode};
use cudarc::driver::{CudaContext, CudaEvent, CudaFunction, CudaGraph, CudaStream, DriverError};
use handles::next_id;
use pinned::Pinned;
use scratch::Scratch;
use std::sync::Arc;
use std::time::{Duration, Instant};
use timing::Timing;

/// Every capture is thread-local: only this thread's unsafe calls (such as
/// `cuMemAlloc`) are refused while it captures.
const CAPTURE_MODE: CUstreamCaptureMode = CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;

/// Graphs are instantiated without flags.
const INSTANTIATE: CUgraphInstantiate_flags = CUgraphInstantiate_flags(0);

/// Maps a driver error to the crate's error, naming the driver call.
pub(crate) fn drv(call: &'static str) -> impl FnOnce(DriverError) -> GpuError {
    move |e| GpuError::Driver {
        call,
        message: format!("{e:?}"),
    }
}

/// An instantiated graph and the stream it was captured on.
struct Graph {
    /// The graph and its executable instance.
    graph: CudaGraph,
    /// The capture stream, where `CudaGraph::launch` runs it.
    stream: StreamId,
}

/// Device 0 through the CUDA driver.
///
/// Not `Send`: a `CudaGraph` must stay on one thread, and raw driver calls
/// expect the context bound to the calling thread.
pub(crate) struct CudaExec {
    /// The primary context of device 0, event tracking off.
    ctx: Arc<CudaContext>,
    /// What the device is.
    info: DeviceInfo,
    /// Every kernel of the library, in the order of `CUDA_KERNELS` ([`Kernel::index`]).
    kernels: Vec<CudaFunction>,
    /// Non-blocking streams; `StreamId(n)` is `streams[n - 1]`.
    streams: Vec<Arc<CudaStream>>,
    /// The `sum_f32` scratch slot of each stream, indexed like `streams`.
    sum_slots: Vec<u64>,
    /// Where those slots live.
    scratch: Scratch,
    /// Streams capturing a graph right now: the one that began the capture
    /// first, then each that joined it (by waiting for an event recorded
    /// inside it), so that their work is not timed.
    capturing: Vec<StreamId>,
    /// Events last recorded on a stream of the capture in progress: a stream
    /// that waits for one joins the capture (the driver sees to that; this
    /// list only follows it).
    captured_events: Vec<EventId>,
    /// Events with timing enabled, by `EventId`; `None` once destroyed.
    events: Vec<Option<CudaEvent>>,
    /// Pinned host allocations by `HostId`; `None` once freed.
    pinned: Vec<Option<Pinned>>,
    /// Instantiated graphs, by `GraphId`; `None` once destroyed.
    graphs: Vec<Option<Graph>>,
    /// GPU timing, when asked for at open.
    timing: Option<Timing>,
    /// The CPU clock: `now_ns` counts from the end of the setup.
    clock: CpuClock,
}

/// Opens device 0: creates the context (event tracking off), compiles the
/// kernel library with NVRTC (once per process) and loads it. `gpu_timing`:
/// record a start and an end event around every launch, copy, memset and
/// graph launch, so that the trace can show GPU times ([`Span::Pending`]);
/// the base event of those times is recorded here, on an internal stream
/// that runs nothing else. Blocks while it sets up.
pub(crate) fn open(gpu_timing: bool) -> Result<CudaExec> {
    probe().map_err(|reason| GpuError::NoCudaDevice { reason })?;
    let ctx = setup::context()?;
    let info = setup::device_info(&ctx)?;
    let ptx = setup::kernel_ptx(setup::arch(info.compute_capability))?;
    let kernels = setup::load_kernels(&ctx, ptx)?;
    ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
    let scratch = Scratch::new()?;
    let clock = CpuClock::new();
    let timing = match gpu_timing {
        true => Some(Timing::new(&ctx, clock.origin())?),
        false => None,
    };
    Ok(CudaExec {
        ctx,
        info,
        kernels,
        streams: Vec::new(),
        sum_slots: Vec::new(),
        scratch,
        capturing: Vec::new(),
        captured_events: Vec::new(),
        events: Vec::new(),
        pinned: Vec::new(),
        graphs: Vec::new(),
        timing,
        clock,
    })
}

impl Exec for CudaExec {
    fn info(&self) -> DeviceInfo {
        self.info.clone()
    }

    fn now_ns(&mut self) -> u64 {
        self.clock.now_ns()
    }

    fn host_work(&mut self, ns: u64) {
        let end = Instant::now() + Duration::from_nanos(ns);
        while Instant::now() < end {
            std::hint::spin_loop();
        }
    }

    fn create_stream(&mut self) -> Result<StreamId> {
        let stream = self.ctx.new_stream().map_err(drv("cuStreamCreate"))?;
        self.bind()?;
        let slot = self.scratch.slot_for(self.streams.len(), &stream)?;
        self.streams.push(stream);
        self.sum_slots.push(slot);
        Ok(StreamId(next_id(self.streams.len())))
    }

    fn create_event(&mut self) -> Result<EventId> {
        let event = timing::new_event(&self.ctx)?;
        self.events.push(Some(event));
        Ok(EventId(next_id(self.events.len() - 1)))
    }

    fn malloc_async(&mut self, stream: StreamId, bytes: usize) -> Result<u64> {
        self.bind()?;
        let cu = self.stream(stream).cu_stream();
        // SAFETY: `cu` is a live stream of this context; the memory is
        // returned as a raw address, and nothing reads it as a Rust value.
        unsafe { result::malloc_async(cu, bytes.max(1)) }.map_err(drv("cuMemAllocAsync"))
    }

    fn free_async(&mut self, stream: StreamId, addr: u64) -> Result<()> {
        self.bind()?;
        let cu = self.stream(stream).cu_stream();
        // SAFETY: `addr` came from `malloc_async` and is freed once (the
        // front end's allocation table); the free is ordered on `cu`.
        unsafe { result::free_async(addr, cu) }.map_err(drv("cuMemFreeAsync"))
    }

    fn memset_zero(&mut self, stream: StreamId, addr: u64, bytes: usize) -> Result<Span> {
        self.run_memset(stream, addr, bytes)
    }

    fn malloc_segment(&mut self, bytes: usize) -> Result<u64> {
        self.bind()?;
        // SAFETY: a plain allocation; the memory is returned as a raw address.
        unsafe { result::malloc_sync(bytes.max(1)) }.map_err(drv("cuMemAlloc"))
    }

    fn free_segment(&mut self, addr: u64) -> Result<()> {
        self.bind()?;
        // SAFETY: `addr` came from `malloc_segment` and is freed once (the
        // front end's allocation table). `cuMemFree` waits for the device.
        unsafe { result::free_sync(addr) }.map_err(drv("cuMemFree"))
    }

    fn alloc_pinned(&mut self, bytes: usize) -> Result<HostId> {
        self.bind()?;
        self.pinned.push(Some(Pinned::alloc(bytes)?));
        Ok(HostId(next_id(self.pinned.len() - 1)))
    }

    fn free_pinned(&mut self, host: HostId) -> Result<()> {
        self.bind()?;
        let slot = self.pinned.get_mut(host.0 as usize).and_then(Option::take);
        let pinned = slot.unwrap_or_else(|| panic!("pinned allocation {} is not live", host.0));
        // May wait for the device: `cuMemFreeHost` synchronizes.
        pinned.free()
    }

    fn read_pinned(&mut self, host: HostId, offset: usize, out: &mut [u8]) {
        self.pinned(host).read(offset, out);
    }

    fn write_pinned(&mut self, host: HostId, offset: usize, data: &[u8]) {
        self.pinned(host).write(offset, data);
    }

    fn launch(&mut self, stream: StreamId, kernel: &Kernel) -> Result<Span> {
        let Some(mut plan) = launch::plan(kernel, self.sum_slot(stream))? else {
            return Ok(Span::None);
        };
        let started = self.timer_start(stream)?;
        let (cu_stream, function) = (self.stream(stream).cu_stream(), self.kernel(&plan));
        let submitted = launch::launch(&self.ctx, cu_stream, function, &mut plan);
        self.timer_finish(started, stream, submitted)
    }

    fn copy(&mut self, stream: StreamId, copy: Copy<'_>) -> Result<Span> {
        self.run_copy(stream, copy)
    }

    fn record_event(&mut self, event: EventId, stream: StreamId) -> Result<()> {
        let s = self.stream(stream);
        self.event(event).record(s).map_err(drv("cuEventRecord"))?;
        self.captured_events.retain(|e| *e != event);
        if self.capturing.contains(&stream) {
            self.captured_events.push(event);
        }
        Ok(())
    }

    fn wait_event(&mut self, stream: StreamId, event: EventId) -> Result<()> {
        let e = self.event(event);
        self.stream(stream)
            .wait(e)
            .map_err(drv("cuStreamWaitEvent"))?;
        if self.captured_events.contains(&event) && !self.capturing.contains(&stream) {
            self.capturing.push(stream);
        }
        Ok(())
    }

    fn sync_stream(&mut self, stream: StreamId) -> Result<()> {
        self.parked_error("cuStreamSynchronize")?;
        self.stream(stream)
            .synchronize()
            .map_err(drv("cuStreamSynchronize"))
    }

    fn sync_event(&mut self, event: EventId) -> Result<()> {
        self.parked_error("cuEventSynchronize")?;
        self.event(event)
            .synchronize()
            .map_err(drv("cuEventSynchronize"))
    }

    fn sync_device(&mut self) -> Result<()> {
        self.ctx.synchronize().map_err(drv("cuCtxSynchronize"))
    }

    fn query_stream(&mut self, stream: StreamId) -> Result<bool> {
        self.bind()?;
        let cu = self.stream(stream).cu_stream();
        // SAFETY: `cu` is a live stream of this context; the query only reads.
        match unsafe { sys::cuStreamQuery(cu) } {
            CUresult::CUDA_SUCCESS => Ok(true),
            CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            other => Err(drv("cuStreamQuery")(DriverError(other))),
        }
    }

    fn query_event(&mut self, event: EventId) -> Result<bool> {
        self.event(event)
            .try_is_complete()
            .map_err(drv("cuEventQuery"))
    }

    fn elapsed_ms(&mut self, start: EventId, end: EventId) -> Result<f32> {
        // Synchronizes both events first.
        self.event(start)
            .elapsed_ms(self.event(end))
            .map_err(drv("cuEventElapsedTime"))
    }

    fn begin_capture(&mut self, stream: StreamId) -> Result<()> {
        self.stream(stream)
            .begin_capture(CAPTURE_MODE)
            .map_err(drv("cuStreamBeginCapture"))?;
        self.capturing.push(stream);
        Ok(())
    }

    fn end_capture(&mut self, stream: StreamId) -> Result<GraphId> {
        self.leave_capture(stream);
        let ended = self.stream(stream).end_capture(INSTANTIATE);
        let graph = ended
            .map_err(drv("cuStreamEndCapture"))?
            .ok_or_else(|| GpuError::Driver {
                call: "cuStreamEndCapture",
                message: "the driver returned no graph".into(),
            })?;
        // Asynchronous, on the capture stream: the first launch is then as
        // fast as the later ones.
        graph.upload().map_err(drv("cuGraphUpload"))?;
        self.graphs.push(Some(Graph { graph, stream }));
        Ok(GraphId(next_id(self.graphs.len() - 1)))
    }

    fn destroy_event(&mut self, event: EventId) {
        if let Some(slot) = self.events.get_mut(event.0 as usize) {
            *slot = None; // cudarc's drop runs cuEventDestroy
        }
    }

    fn destroy_graph(&mut self, graph: GraphId) {
        if let Some(slot) = self.graphs.get_mut(graph.0 as usize) {
            *slot = None; // cudarc's drop destroys the exec and the graph
        }
    }

    fn abort_capture(&mut self, stream: StreamId) {
        self.leave_capture(stream);
        let _ = self.ctx.bind_to_thread();
        let cu = self.stream(stream).cu_stream();
        // SAFETY: `cu` is a live stream of this context. Ending the capture
        // directly (not through cudarc, which would first return any error
        // parked by a drop and leave the stream capturing) hands us the
        // graph, if any, which nothing else refers to: we destroy it once.
        // An invalidated capture returns an error and no graph.
        if let Ok(graph) = unsafe { result::stream::end_capture(cu) }
            && !graph.is_null()
        {
            // SAFETY: see above.
            let _ = unsafe { result::graph::destroy(graph) };
        }
    }

    fn launch_graph(&mut self, graph: GraphId, stream: StreamId) -> Result<Span> {
        let captured_on = self.graph(graph).stream;
        assert_eq!(
            captured_on, stream,
            "graph {} runs on its capture stream {captured_on}, not on stream {stream}",
            graph.0
        );
        let started = self.timer_start(stream)?;
        let submitted = self
            .graph(graph)
            .graph
            .launch()
            .map_err(drv("cuGraphLaunch"));
        self.timer_finish(started, stream, submitted)
    }

    fn graph_nodes(&self, graph: GraphId) -> usize {
        let cu_graph = self.graph(graph).graph.cu_graph();
        let _ = self.ctx.bind_to_thread();
        let mut count = 0usize;
        // SAFETY: `cu_graph` is the live graph of a `CudaGraph` we own; with a
        // null node array the driver only writes the node count into `count`.
        let code = unsafe { sys::cuGraphGetNodes(cu_graph, std::ptr::null_mut(), &mut count) };
        if code == CUresult::CUDA_SUCCESS {
            count
        } else {
            0
        }
    }

    /// `None` while a stream of this device is capturing (asking the driver
    /// then would invalidate the capture); the token can be resolved after.
    fn resolve(&mut self, token: u64) -> Option<GpuSpan> {
        let capturing = !self.capturing.is_empty();
        self.timing.as_mut()?.resolve(token, capturing)
    }
}
