//! The judge's side: the devices a learner's process may call, and what it
//! made on them. [`serve`] makes one [`Call`] with the public API on the
//! real objects, under the learner's call site, so the trace, the race
//! checker, sync debug mode and the capture rules see exactly what a call in
//! the same process would show them.
//!
//! Only what the judge handed over ([`export_stream`] and the others) and
//! what the learner's process made through it can be named: a handle the
//! judge does not know is refused (as a foreign handle), so learner code can
//! reach no other stream, buffer or event of the judge's.
//!
//! Over 400 lines: one arm per kind of call, each a line or three of
//! the public API, and the tables they use; split, the arms would only be
//! further from the handles they look up.

use super::call::{Call, Description, What};
use super::guard::{self, Limits, Refusal, Stop};
use super::{DecoderRef, DeviceRef, PinnedRef, StreamRef};
use crate::decoder::Decoder;
use crate::device::Device;
use crate::elem::{Elem, ElemKind, RawView, View};
use crate::error::{GpuError, Result};
use crate::event::Event;
use crate::exec::{EventId, GraphId, HostId};
use crate::graph::Graph;
use crate::memory::{DeviceBuffer, PinnedBuffer, Segment};
use crate::stream::Stream;
use crate::trace::{CallSite, StreamId};
use serde::Serialize;
use std::cell::RefCell;
use std::collections::HashMap;
use std::mem::ManuallyDrop;
use std::time::Duration;

/// Runs `$body` with `$T` the element type `$kind` names.
macro_rules! by_kind {
    ($kind:expr, $T:ident => $body:expr) => {
        match $kind {
            ElemKind::F32 => {
                type $T = f32;
                $body
            }
            ElemKind::I32 => {
                type $T = i32;
                $body
            }
            ElemKind::U32 => {
                type $T = u32;
                $body
            }
        }
    };
}

/// A pinned buffer the learner may use: its own (freed when it drops it)
/// or one the judge handed over (never freed from the learner's side).
enum Pinned {
    Own(PinnedBuffer<u32>),
    Lent { len: usize },
}

/// One device the learner's process may call, and what it made there.
struct Entry {
    device: Device,
    streams: HashMap<StreamId, Stream>,
    events: HashMap<EventId, Event>,
    /// The learner's buffers by address. All elements are 4 bytes, and an
    /// allocation's trace and race effects depend only on its bytes, so one
    /// element type holds every kind.
    buffers: HashMap<u64, DeviceBuffer<u32>>,
    pinned: HashMap<HostId, Pinned>,
    segments: HashMap<u64, Segment>,
    graphs: HashMap<GraphId, Graph>,
    /// Decoders, with whether the learner made them (and may drop them).
    decoders: HashMap<u32, (Decoder, bool)>,
    next_decoder: u32,
    /// Bytes of the learner's own pinned buffers.
    pinned_bytes: u64,
    /// Reads of the device's CPU clock (`now`) the learner's process made.
    clock_reads: u64,
    /// The places, on the device's stack of ranges, of the ranges the
    /// learner opened and has not closed: it may close only these.
    ranges: Vec<usize>,
}

impl Entry {
    fn new(device: Device) -> Self {
        Self {
            device,
            streams: HashMap::new(),
            events: HashMap::new(),
            buffers: HashMap::new(),
            pinned: HashMap::new(),
            segments: HashMap::new(),
            graphs: HashMap::new(),
            decoders: HashMap::new(),
            next_decoder: 1,
            pinned_bytes: 0,
            clock_reads: 0,
            ranges: Vec::new(),
        }
    }
}

/// Every device handed over in this process, by handle (its index).
#[derive(Default)]
struct Host {
    entries: Vec<Entry>,
}

thread_local! {
    static HOST: RefCell<Host> = RefCell::new(Host::default());
}

fn with_host<R>(f: impl FnOnce(&mut Host) -> R) -> R {
    HOST.with(|host| f(&mut host.borrow_mut()))
}

impl Host {
    fn handle(&mut self, device: &Device) -> u32 {
        if let Some(i) = self.entries.iter().position(|e| e.device.same(device)) {
            return i as u32;
        }
        self.entries.push(Entry::new(device.clone()));
        (self.entries.len() - 1) as u32
    }
}

/// Hands `device` to the learner's process; the same handle each time.
pub fn export_device(device: &Device) -> DeviceRef {
    DeviceRef(with_host(|host| host.handle(device)))
}

/// Hands `stream` (and its device) to the learner's process.
pub fn export_stream(stream: &Stream) -> StreamRef {
    with_host(|host| {
        let device = host.handle(stream.device());
        host.entries[device as usize]
            .streams
            .insert(stream.id(), stream.clone());
        StreamRef {
            device,
            stream: stream.id(),
        }
    })
}

/// Lends `buffer` to the learner's process: it may copy to and from it,
/// read and write it, but not free it.
pub fn export_pinned<T: Elem>(buffer: &PinnedBuffer<T>) -> PinnedRef {
    with_host(|host| {
        let device = host.handle(buffer.device());
        let entry = &mut host.entries[device as usize];
        entry
            .pinned
            .entry(buffer.host())
            .or_insert(Pinned::Lent { len: buffer.len() });
        PinnedRef {
            device,
            host: buffer.host(),
            elem: T::KIND,
            len: buffer.len(),
        }
    })
}

/// Lends `decoder` to the learner's process, to run steps of.
pub fn export_decoder(decoder: &Decoder) -> DecoderRef {
    with_host(|host| {
        let device = host.handle(decoder.device());
        let entry = &mut host.entries[device as usize];
        let id = entry.next_decoder;
        entry.next_decoder += 1;
        entry.decoders.insert(id, (decoder.clone(), false));
        DecoderRef {
            device,
            decoder: id,
            config: decoder.config().clone(),
        }
    })
}

/// The stream a learner's process names (one the judge handed over or one
/// it made), for a callback of the judge's code that it calls with it.
pub fn stream(stream: StreamRef) -> Option<Stream> {
    with_host(|host| {
        let entry = host.entries.get(stream.device as usize)?;
        entry.streams.get(&stream.stream).cloned()
    })
}

/// How many times the learner's process has read `device`'s CPU clock
/// (`Device::now`) so far, or `None` when `device` was never handed to a
/// learner's process (the learner's code then runs in this one, and its
/// reads are not counted). A check tells from it whether a figure of the
/// learner's came from the device's clock or from one of its own process
/// (`std::time::Instant`), which on the virtual GPU times the model.
pub fn clock_reads(device: &Device) -> Option<u64> {
    with_host(|host| {
        host.entries
            .iter()
            .find(|e| e.device.same(device))
            .map(|e| e.clock_reads)
    })
}

/// Forgets every device and everything the learner's process made: what it
/// still held is dropped, as the end of a check drops it.
pub fn reset() {
    let old = with_host(std::mem::take);
    drop(old);
}

/// Makes `call` on the judge's device and returns its answer, encoded for
/// the learner's process (a `Result` of the call's type); or why it made
/// none ([`Stop`]): a call that the real one would not take, or one past
/// this thread's [`Limits`], is refused, and a panic
/// of the judge's own code while making it is caught and reported as the
/// judge's fault. Nothing a call carries can make this panic or abort.
pub fn serve(call: Call) -> Result<Vec<u8>, Stop> {
    let Call { device, site, what } = call;
    super::guard::check(&what, site)?;
    let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::trace::with_site(site, || with_host(|host| host.serve(device, site, what)))
    }));
    made.unwrap_or_else(|payload| Err(Stop::Fault(panic_message(payload.as_ref()))))
}

/// The message of a caught panic.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_string()))
        .unwrap_or_else(|| "a panic without a message".into())
}

fn encode<T: Serialize>(result: Result<T>) -> Vec<u8> {
    postcard::to_stdvec(&result).expect("answers serialize")
}

fn unknown(op: &'static str, site: CallSite) -> GpuError {
    GpuError::ForeignHandle { op, site }
}

fn view<T: Elem>(raw: RawView) -> View<T> {
    View::new(raw.addr, raw.len)
}

impl Host {
    fn serve(&mut self, device: u32, site: CallSite, what: What) -> Result<Vec<u8>, Stop> {
        let Some(entry) = self.entries.get_mut(device as usize) else {
            return Ok(encode::<()>(Err(unknown("a device call", site))));
        };
        let limits = guard::limits();
        entry.within(&limits, site)?;
        let asked = guard::bytes_asked(&what);
        let held = entry.held();
        if held.saturating_add(asked) > limits.memory {
            return Ok(encode::<()>(Err(GpuError::OutOfMemory {
                op: guard::op(&what),
                requested: asked,
                capacity: limits.memory.saturating_sub(held),
                site,
            })));
        }
        Ok(entry.serve(site, what))
    }
}

impl Entry {
    /// Bytes the judge's process holds now: its heap, where it counts it,
    /// and the pinned memory of this device's learner buffers where that
    /// is not on the heap (the CUDA driver's).
    fn held(&self) -> u64 {
        let heap = super::counted::live_bytes().unwrap_or(0);
        let pinned = match self.device.backend() {
            crate::BackendKind::Cuda => self.pinned_bytes,
            _ => 0,
        };
        heap.saturating_add(pinned)
    }

    /// Refuses a call once the check's trace is full, or once the judge
    /// holds more for this submission than its memory limit.
    fn within(&self, limits: &Limits, site: CallSite) -> Result<(), Stop> {
        let refuse = |message: String| Err(Stop::Refused(Refusal { message, site }));
        if self.device.core().trace_len() >= limits.trace_entries {
            return refuse(format!(
                "this check's device has traced {} calls, the most one check may make; a step that makes this many calls loops without end or makes a call per element: make one call per batch, and end the loop",
                limits.trace_entries
            ));
        }
        let held = self.held();
        if held > limits.memory {
            return refuse(format!(
                "the judge holds {} for this check's calls, past the submission's memory limit of {} (`--memory-limit`); drop the buffers, pinned buffers and events you no longer need",
                guard::mib(held),
                guard::mib(limits.memory)
            ));
        }
        Ok(())
    }

    fn stream(&self, id: StreamId, op: &'static str, site: CallSite) -> Result<&Stream> {
        self.streams.get(&id).ok_or_else(|| unknown(op, site))
    }

    fn event(&self, id: EventId, op: &'static str, site: CallSite) -> Result<&Event> {
        self.events.get(&id).ok_or_else(|| unknown(op, site))
    }

    /// A handle on pinned buffer `host` that frees nothing when dropped.
    fn pinned(
        &self,
        host: HostId,
        op: &'static str,
        site: CallSite,
    ) -> Result<ManuallyDrop<PinnedBuffer<u32>>> {
        let len = match self.pinned.get(&host).ok_or_else(|| unknown(op, site))? {
            Pinned::Own(buffer) => buffer.len(),
            Pinned::Lent { len } => *len,
        };
        Ok(ManuallyDrop::new(PinnedBuffer::new(
            self.device.clone(),
            host,
            len,
        )))
    }

    /// Closes the learner's range at `place` and those it opened inside it;
    /// a place the learner did not open (the judge's own ranges) is left.
    fn close_range(&mut self, place: u64) {
        let Some(at) = self.ranges.iter().position(|&p| p as u64 == place) else {
            return;
        };
        self.ranges.truncate(at);
        self.device.close_range(place as usize);
    }

    fn serve(&mut self, site: CallSite, what: What) -> Vec<u8> {
        match what {
            What::Describe => encode(Ok(Description {
                backend: self.device.backend(),
                name: self.device.name(),
                compute_capability: self.device.compute_capability(),
                total_memory: self.device.total_memory(),
                calibration: self.device.calibration(),
            })),
            What::Now => {
                self.clock_reads += 1;
                encode(Ok(self.device.now().as_nanos() as u64))
            }
            What::NewStream => encode(self.new_stream()),
            What::NewEvent => encode(self.new_event()),
            What::Synchronize => encode(self.device.synchronize()),
            What::HostWork { ns } => {
                self.device.host_work(Duration::from_nanos(ns));
                encode(Ok(()))
            }
            What::AllocSegment { bytes } => encode(self.alloc_segment(bytes)),
            What::FreeSegment { addr } => encode(self.free_segment(addr, site)),
            What::DropSegment { addr } => {
                self.segments.remove(&addr);
                encode(Ok(()))
            }
            What::AllocPinned { elem: _, len } => encode(self.alloc_pinned(len)),
            What::CheckView { elem, addr, len } => {
                encode(by_kind!(elem, T => self.device.view::<T>(addr, len).map(|_| ())))
            }
            What::AllocZeros { stream, elem: _, len } => encode(self.alloc_zeros(stream, len, site)),
            What::FreeBuffer { addr } => {
                if let Some(buffer) = self.buffers.remove(&addr) {
                    buffer.free();
                }
                encode(Ok(()))
            }
            What::StreamSynchronize { stream } => {
                encode(self.stream(stream, "synchronize", site).and_then(|s| s.synchronize()))
            }
            What::StreamQuery { stream } => {
                encode(self.stream(stream, "query", site).and_then(|s| s.query()))
            }
            What::WaitEvent { stream, event } => encode(self.wait_event(stream, event, site)),
            What::BeginCapture { stream } => {
                encode(self.stream(stream, "begin_capture", site).and_then(|s| s.begin_capture()))
            }
            What::EndCapture { stream } => encode(self.end_capture(stream, site)),
            What::IsCapturing { stream } => {
                encode(self.stream(stream, "is_capturing", site).map(|s| s.is_capturing()))
            }
            What::CopyFromHost { stream, src, dst } => encode(self.copy_from_host(stream, &src, dst, site)),
            What::CopyToHost { stream, src } => encode(self.copy_to_host(stream, src, site)),
            What::CopyFromPinned { stream, src, dst } => {
                encode(self.copy_from_pinned(stream, src, dst, site))
            }
            What::CopyToPinned { stream, src, dst } => {
                encode(self.copy_to_pinned(stream, src, dst, site))
            }
            What::Copy { stream, src, dst } => encode(self.stream(stream, "copy", site).and_then(
                |s| by_kind!(src.elem, T => s.copy(view::<T>(src), view::<T>(dst))),
            )),
            What::Spin { stream, ns } => encode(
                self.stream(stream, "spin", site)
                    .and_then(|s| s.spin(Duration::from_nanos(ns))),
            ),
            What::Fill { stream, dst, value } => encode(self.stream(stream, "fill", site).and_then(
                |s| by_kind!(dst.elem, T => s.fill(view::<T>(dst), bytemuck::cast::<u32, T>(value.bits()))),
            )),
            What::Sum {
                stream,
                delay_ns,
                src,
                out,
            } => encode(self.stream(stream, "sum", site).and_then(|s| {
                s.sum_after(Duration::from_nanos(delay_ns), view::<f32>(src), view::<f32>(out))
            })),
            What::ArgmaxRows {
                stream,
                src,
                rows,
                cols,
                out,
            } => encode(
                self.stream(stream, "argmax_rows", site)
                    .and_then(|s| s.argmax_rows(view::<f32>(src), rows, cols, view::<i32>(out))),
            ),
            What::FlagEq {
                stream,
                src,
                value,
                flags,
            } => encode(
                self.stream(stream, "flag_eq", site)
                    .and_then(|s| s.flag_eq(view::<i32>(src), value, view::<i32>(flags))),
            ),
            What::CountEq {
                stream,
                src,
                value,
                out,
            } => encode(
                self.stream(stream, "count_eq", site)
                    .and_then(|s| s.count_eq(view::<i32>(src), value, view::<i32>(out))),
            ),
            What::Affine { stream, x, a, b, y } => encode(
                self.stream(stream, "affine", site)
                    .and_then(|s| s.affine(view::<f32>(x), a, b, view::<f32>(y))),
            ),
            What::DecodeStep {
                stream,
                decoder,
                tokens_in,
                tokens_out,
            } => encode(self.decode_step(stream, decoder, tokens_in, tokens_out, site)),
            What::RecordEvent { event, stream } => encode(
                self.event(event, "record", site)
                    .and_then(|e| e.record(self.stream(stream, "record", site)?)),
            ),
            What::EventSynchronize { event } => {
                encode(self.event(event, "synchronize", site).and_then(|e| e.synchronize()))
            }
            What::EventQuery { event } => {
                encode(self.event(event, "query", site).and_then(|e| e.query()))
            }
            What::ElapsedMs { start, end } => encode(
                self.event(start, "elapsed_ms", site)
                    .and_then(|s| s.elapsed_ms(self.event(end, "elapsed_ms", site)?)),
            ),
            What::DropEvent { event } => {
                self.events.remove(&event);
                encode(Ok(()))
            }
            What::ReadPinned { host } => encode(
                self.pinned(host, "PinnedBuffer::to_vec", site)
                    .map(|p| bytemuck::cast_slice::<u32, u8>(&p.to_vec()).to_vec()),
            ),
            What::WritePinned { host, data } => encode(self.write_pinned(host, &data, site)),
            What::DropPinned { host } => {
                if let Some(Pinned::Own(buffer)) = self.pinned.get(&host) {
                    self.pinned_bytes = self.pinned_bytes.saturating_sub(4 * buffer.len() as u64);
                    self.pinned.remove(&host);
                }
                encode(Ok(()))
            }
            What::LaunchGraph { graph } => encode(
                self.graphs
                    .get(&graph)
                    .ok_or_else(|| unknown("Graph::launch", site))
                    .and_then(Graph::launch),
            ),
            What::DropGraph { graph } => {
                self.graphs.remove(&graph);
                encode(Ok(()))
            }
            What::NewDecoder { stream, config } => encode(self.new_decoder(stream, config, site)),
            What::DropDecoder { decoder } => {
                if self.decoders.get(&decoder).is_some_and(|(_, own)| *own) {
                    self.decoders.remove(&decoder);
                }
                encode(Ok(()))
            }
            What::OpenRange { name } => {
                let place = self.device.open_range(site, &name);
                self.ranges.push(place);
                encode(Ok(place as u64))
            }
            What::CloseRange { place } => {
                self.close_range(place);
                encode(Ok(()))
            }
        }
    }

    fn new_stream(&mut self) -> Result<StreamId> {
        let stream = self.device.new_stream()?;
        let id = stream.id();
        self.streams.insert(id, stream);
        Ok(id)
    }

    fn new_event(&mut self) -> Result<EventId> {
        let event = self.device.new_event()?;
        let id = event.id();
        self.events.insert(id, event);
        Ok(id)
    }

    fn alloc_segment(&mut self, bytes: usize) -> Result<u64> {
        let segment = self.device.alloc_segment(bytes)?;
        let addr = segment.addr();
        self.segments.insert(addr, segment);
        Ok(addr)
    }

    fn free_segment(&mut self, addr: u64, site: CallSite) -> Result<()> {
        let segment = self
            .segments
            .remove(&addr)
            .ok_or_else(|| unknown("free_segment", site))?;
        self.device.free_segment(segment)
    }

    fn alloc_pinned(&mut self, len: usize) -> Result<HostId> {
        let buffer = self.device.alloc_pinned::<u32>(len)?;
        self.pinned_bytes = self.pinned_bytes.saturating_add(4 * len as u64);
        let host = buffer.host();
        self.pinned.insert(host, Pinned::Own(buffer));
        Ok(host)
    }

    fn alloc_zeros(&mut self, stream: StreamId, len: usize, site: CallSite) -> Result<u64> {
        let buffer = self
            .stream(stream, "alloc_zeros", site)?
            .alloc_zeros::<u32>(len)?;
        let addr = buffer.addr();
        self.buffers.insert(addr, buffer);
        Ok(addr)
    }

    fn wait_event(&self, stream: StreamId, event: EventId, site: CallSite) -> Result<()> {
        let stream = self.stream(stream, "wait_event", site)?;
        stream.wait_event(self.event(event, "wait_event", site)?)
    }

    fn end_capture(&mut self, stream: StreamId, site: CallSite) -> Result<(GraphId, usize)> {
        let graph = self.stream(stream, "end_capture", site)?.end_capture()?;
        let answer = (graph.id(), graph.len());
        self.graphs.insert(graph.id(), graph);
        Ok(answer)
    }

    fn copy_from_host(
        &self,
        stream: StreamId,
        src: &[u8],
        dst: RawView,
        site: CallSite,
    ) -> Result<()> {
        let stream = self.stream(stream, "copy_from_host", site)?;
        let src = elements(src, "copy_from_host", site)?;
        stream.copy_from_host(&src, view::<u32>(dst))
    }

    fn copy_to_host(&self, stream: StreamId, src: RawView, site: CallSite) -> Result<Vec<u8>> {
        let stream = self.stream(stream, "copy_to_host", site)?;
        let values = stream.to_vec(view::<u32>(src))?;
        Ok(bytemuck::cast_slice(&values).to_vec())
    }

    fn copy_from_pinned(
        &self,
        stream: StreamId,
        src: HostId,
        dst: RawView,
        site: CallSite,
    ) -> Result<()> {
        let stream = self.stream(stream, "copy_from_pinned", site)?;
        let src = self.pinned(src, "copy_from_pinned", site)?;
        stream.copy_from_pinned(&src, view::<u32>(dst))
    }

    fn copy_to_pinned(
        &self,
        stream: StreamId,
        src: RawView,
        dst: HostId,
        site: CallSite,
    ) -> Result<()> {
        let stream = self.stream(stream, "copy_to_pinned", site)?;
        let dst = self.pinned(dst, "copy_to_pinned", site)?;
        stream.copy_to_pinned(view::<u32>(src), &dst)
    }

    fn write_pinned(&self, host: HostId, data: &[u8], site: CallSite) -> Result<()> {
        let buffer = self.pinned(host, "PinnedBuffer::write", site)?;
        buffer.write(&elements(data, "PinnedBuffer::write", site)?)
    }

    fn decode_step(
        &self,
        stream: StreamId,
        decoder: u32,
        tokens_in: RawView,
        tokens_out: RawView,
        site: CallSite,
    ) -> Result<()> {
        let stream = self.stream(stream, "decode_step", site)?;
        let (decoder, _) = self
            .decoders
            .get(&decoder)
            .ok_or_else(|| unknown("decode_step", site))?;
        stream.decode_step(decoder, view::<i32>(tokens_in), view::<i32>(tokens_out))
    }

    fn new_decoder(
        &mut self,
        stream: StreamId,
        config: crate::decoder::DecoderConfig,
        site: CallSite,
    ) -> Result<u32> {
        let decoder = Decoder::new(self.stream(stream, "Decoder::new", site)?, config)?;
        let id = self.next_decoder;
        self.next_decoder += 1;
        self.decoders.insert(id, (decoder, true));
        Ok(id)
    }
}

/// The 4-byte elements `bytes` holds (a whole number of them, or a length error).
fn elements(bytes: &[u8], op: &'static str, site: CallSite) -> Result<Vec<u32>> {
    if !bytes.len().is_multiple_of(4) {
        return Err(GpuError::Length {
            op,
            detail: format!("{} bytes are not a whole number of elements", bytes.len()),
            site,
        });
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}
